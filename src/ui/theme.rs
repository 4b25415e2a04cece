//! The dashboard's colours: the built-in look ([`Theme::default`]), or a k9s skin mapped onto it
//! ([`Theme::from_skin`], k9s `internal/config/styles.go`).
//!
//! What a k9s skin sets, and where it lands here:
//! - `views.table.fgColor` / `bgColor`: a healthy row, the table's background;
//! - `frame.status.*`: `modifyColor` pending rows, `errorColor` failing ones, `killColor`
//!   terminating ones, `completedColor` completed ones, `addColor` the flash of a new row;
//! - `views.table.cursorFgColor` / `cursorBgColor`: the selected row (built-in: reversed);
//! - `views.table.header.fgColor` / `bgColor`: the column headers;
//! - `frame.border.fgColor`, `frame.title.fgColor`: a table's frame and title;
//! - `frame.menu.keyColor` / `fgColor`: the footer's keys and their names.
//!
//! Keys kinformer has no place for are ignored, and a key a skin leaves out keeps the built-in
//! colour.

use ratatui::style::{Color, Modifier, Style};

use crate::config::Skin;
use crate::config::skins::SkinColor;
use crate::render::Health;

/// The colours the skinnable screens use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub ok: Color,
    pub pending: Color,
    pub warning: Color,
    pub error: Color,
    pub terminating: Color,
    pub completed: Color,
    /// A new row's flash (background; black text on it).
    pub added: Color,
    /// The table's background (`Reset`: the terminal's).
    pub table_bg: Color,
    /// The selected row (`None`: the row's colours reversed).
    pub cursor: Option<(Color, Color)>,
    pub header_fg: Color,
    pub header_bg: Color,
    pub border: Color,
    pub title: Color,
    pub key: Color,
    pub menu: Color,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            ok: Color::Cyan,
            pending: Color::Yellow,
            warning: Color::LightYellow,
            error: Color::Red,
            terminating: Color::Magenta,
            completed: Color::DarkGray,
            added: Color::Green,
            table_bg: Color::Reset,
            cursor: None,
            header_fg: Color::White,
            header_bg: Color::Reset,
            border: Color::Blue,
            title: Color::Cyan,
            key: Color::Magenta,
            menu: Color::DarkGray,
        }
    }
}

fn color(c: SkinColor) -> Color {
    match c {
        SkinColor::Default => Color::Reset,
        SkinColor::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

impl Theme {
    /// The built-in look with what `skin` sets.
    pub fn from_skin(skin: &Skin) -> Theme {
        let d = Theme::default();
        let pick = |c: Option<SkinColor>, or: Color| c.map_or(or, color);
        let cursor = match (skin.cursor_fg, skin.cursor_bg) {
            (None, None) => None,
            (fg, bg) => Some((pick(fg, Color::Black), pick(bg, d.ok))),
        };
        Theme {
            ok: pick(skin.table_fg.or(skin.body_fg), d.ok),
            pending: pick(skin.status_modify, d.pending),
            warning: pick(skin.title_highlight, d.warning),
            error: pick(skin.status_error, d.error),
            terminating: pick(skin.status_kill, d.terminating),
            completed: pick(skin.status_completed, d.completed),
            added: pick(skin.status_add, d.added),
            table_bg: pick(skin.table_bg.or(skin.body_bg), d.table_bg),
            cursor,
            header_fg: pick(skin.header_fg, d.header_fg),
            header_bg: pick(skin.header_bg, d.header_bg),
            border: pick(skin.border, d.border),
            title: pick(skin.title_fg, d.title),
            key: pick(skin.menu_key, d.key),
            menu: pick(skin.menu_fg, d.menu),
        }
    }

    /// A row of this health.
    pub fn health(&self, h: Health) -> Style {
        Style::default().fg(match h {
            Health::Ok => self.ok,
            Health::Pending => self.pending,
            Health::Warning => self.warning,
            Health::Error => self.error,
            Health::Terminating => self.terminating,
            Health::Completed => self.completed,
        })
    }

    /// The selected row over its `style`.
    pub fn selected(&self, style: Style) -> Style {
        match self.cursor {
            Some((fg, bg)) => style.fg(fg).bg(bg),
            None => style.add_modifier(Modifier::REVERSED),
        }
    }

    /// Column headers.
    pub fn header(&self) -> Style {
        Style::default()
            .fg(self.header_fg)
            .bg(self.header_bg)
            .add_modifier(Modifier::BOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_skin_is_the_built_in_look_and_a_skin_sets_only_what_it_names() {
        assert_eq!(Theme::from_skin(&Skin::default()), Theme::default());
        let skin = Skin {
            table_fg: Some(SkinColor::Rgb(0, 255, 255)),
            cursor_bg: Some(SkinColor::Rgb(1, 2, 3)),
            status_error: Some(SkinColor::Default),
            ..Skin::default()
        };
        let t = Theme::from_skin(&skin);
        assert_eq!(t.ok, Color::Rgb(0, 255, 255));
        assert_eq!(t.cursor, Some((Color::Black, Color::Rgb(1, 2, 3))));
        assert_eq!(t.error, Color::Reset);
        assert_eq!(t.pending, Theme::default().pending);
    }
}
