//! Log line text made safe for a terminal: ANSI SGR colour sequences become styled runs, every
//! other escape sequence and control character is removed (a log line can never move the cursor,
//! clear the screen, retitle the window or switch character sets), tabs become spaces.

use ratatui::style::{Color, Modifier, Style};

/// A line ready to show: plain text (searched, saved) and style runs over it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CleanLine {
    pub text: Box<str>,
    /// `(byte offset, style)` from which a style applies, in order; empty for plain lines.
    pub runs: Box<[(u32, Style)]>,
}

impl CleanLine {
    /// Heap bytes this line holds (for the view's byte cap).
    pub fn heap_bytes(&self) -> usize {
        self.text.len() + self.runs.len() * std::mem::size_of::<(u32, Style)>()
    }

    /// The style at byte `at`.
    pub fn style_at(&self, at: usize) -> Style {
        let mut s = Style::default();
        for (off, st) in self.runs.iter() {
            if *off as usize > at {
                break;
            }
            s = *st;
        }
        s
    }
}

const TAB: &str = "    ";

fn basic(n: u16) -> Color {
    match n {
        0 => Color::Black,
        1 => Color::Red,
        2 => Color::Green,
        3 => Color::Yellow,
        4 => Color::Blue,
        5 => Color::Magenta,
        6 => Color::Cyan,
        7 => Color::Gray,
        8 => Color::DarkGray,
        9 => Color::LightRed,
        10 => Color::LightGreen,
        11 => Color::LightYellow,
        12 => Color::LightBlue,
        13 => Color::LightMagenta,
        14 => Color::LightCyan,
        _ => Color::White,
    }
}

/// Applies one SGR parameter list to `style`.
fn sgr(params: &str, mut style: Style) -> Style {
    let nums: Vec<u16> = params
        .split([';', ':'])
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    let mut i = 0;
    while i < nums.len() {
        let n = nums[i];
        match n {
            0 => style = Style::default(),
            1 => style = style.add_modifier(Modifier::BOLD),
            2 => style = style.add_modifier(Modifier::DIM),
            3 => style = style.add_modifier(Modifier::ITALIC),
            4 => style = style.add_modifier(Modifier::UNDERLINED),
            7 => style = style.add_modifier(Modifier::REVERSED),
            22 => style = style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style = style.remove_modifier(Modifier::ITALIC),
            24 => style = style.remove_modifier(Modifier::UNDERLINED),
            27 => style = style.remove_modifier(Modifier::REVERSED),
            30..=37 => style = style.fg(basic(n - 30)),
            90..=97 => style = style.fg(basic(n - 90 + 8)),
            40..=47 => style = style.bg(basic(n - 40)),
            100..=107 => style = style.bg(basic(n - 100 + 8)),
            39 => style.fg = None,
            49 => style.bg = None,
            38 | 48 => {
                let colour = match nums.get(i + 1) {
                    Some(5) => {
                        let c = nums.get(i + 2).map(|v| Color::Indexed((*v).min(255) as u8));
                        i += 2;
                        c
                    }
                    Some(2) => {
                        let c = |k: usize| nums.get(i + k).map_or(0, |v| (*v).min(255) as u8);
                        let rgb = Color::Rgb(c(2), c(3), c(4));
                        i += 4;
                        Some(rgb)
                    }
                    _ => None,
                };
                if let Some(c) = colour {
                    style = if n == 38 { style.fg(c) } else { style.bg(c) };
                }
            }
            _ => {}
        }
        i += 1;
    }
    style
}

/// Cleans one raw log line.
pub fn clean(raw: &str) -> CleanLine {
    if !raw.bytes().any(|b| b < 0x20 || b == 0x7f)
        && !raw.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c))
    {
        return CleanLine {
            text: raw.into(),
            runs: Box::new([]),
        };
    }
    let mut text = String::with_capacity(raw.len());
    let mut runs: Vec<(u32, Style)> = Vec::new();
    let mut style = Style::default();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    let mut params = String::new();
                    let mut fin = None;
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            fin = Some(c);
                            break;
                        }
                        if params.len() < 64 {
                            params.push(c);
                        }
                    }
                    if fin == Some('m') {
                        let next = sgr(&params, style);
                        if next != style {
                            style = next;
                            let at = u32::try_from(text.len()).unwrap_or(u32::MAX);
                            match runs.last_mut() {
                                Some(last) if last.0 == at => last.1 = style,
                                _ => runs.push((at, style)),
                            }
                        }
                    }
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    // OSC/DCS/SOS/PM/APC: skip to BEL or ST (ESC \).
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                Some(_) => {
                    // Two-character escapes (ESC 7, ESC c, ESC ( B...): drop both (and the
                    // charset designator's argument).
                    if let Some(c) = chars.next()
                        && matches!(c, '(' | ')' | '*' | '+' | '#' | '%')
                    {
                        chars.next();
                    }
                }
                None => {}
            },
            '\t' => text.push_str(TAB),
            c if c.is_control() => {}
            c => text.push(c),
        }
    }
    if runs.iter().all(|(_, s)| *s == Style::default()) {
        runs.clear();
    }
    CleanLine {
        text: text.into(),
        runs: runs.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_pass_unchanged() {
        let l = clean("GET /healthz 200");
        assert_eq!(&*l.text, "GET /healthz 200");
        assert!(l.runs.is_empty());
    }

    #[test]
    fn sgr_colours_become_style_runs() {
        let l = clean("\x1b[2m12:00\x1b[0m \x1b[32mINFO\x1b[0m done");
        assert_eq!(&*l.text, "12:00 INFO done");
        assert_eq!(l.style_at(0), Style::default().add_modifier(Modifier::DIM));
        assert_eq!(l.style_at(6), Style::default().fg(Color::Green));
        assert_eq!(l.style_at(11), Style::default());
        let l = clean("\x1b[38;5;196mred\x1b[38;2;1;2;3mrgb");
        assert_eq!(l.style_at(0).fg, Some(Color::Indexed(196)));
        assert_eq!(l.style_at(3).fg, Some(Color::Rgb(1, 2, 3)));
    }

    #[test]
    fn cursor_movement_and_screen_control_are_removed() {
        let raw = "a\x1b[2J\x1b[H\x1b[10;5Hb\x1b]0;evil title\x07c\x1b(0d\x08\r\x1b7e\u{9b}f\x7f";
        let l = clean(raw);
        assert_eq!(&*l.text, "abcdef");
        assert!(l.runs.is_empty());
    }

    #[test]
    fn tabs_expand_and_truncated_escapes_do_not_panic() {
        assert_eq!(&*clean("a\tb").text, "a    b");
        assert_eq!(&*clean("x\x1b[").text, "x");
        assert_eq!(&*clean("x\x1b").text, "x");
        assert_eq!(&*clean("x\x1b]0;unterminated").text, "x");
    }
}
