//! The set-image dialog (`i` on a Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet or
//! CronJob): the object's containers with their images (fetched with a GET: the cache keeps
//! none), ↑/↓ picks one, the input holds its image to edit; Enter sends `kubectl set image`'s
//! patch through [`crate::ui::operate`] (editing the image is the confirmation), Esc cancels.

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::ui::component::{Component, Ctx, Outcome};
use crate::ui::kit::{centered, dialog_block};
use crate::ui::operate::{ContainerImage, Operation, Write};

/// Containers listed at most (a pod with more scrolls nothing: the rest are not offered).
const MAX_LISTED: usize = 12;

/// An open set-image dialog.
#[derive(Debug, Clone)]
pub struct SetImageDialog {
    /// The write to send, its container and image filled in from the dialog.
    pub write: Box<Write>,
    /// `None` while the object is fetched.
    pub containers: Option<Result<Vec<ContainerImage>, String>>,
    pub selected: usize,
    /// The selected container's image, as edited.
    pub input: Input,
    /// Why Enter did not send (shown in the dialog).
    pub error: Option<String>,
    /// The cluster it acts on, named when several are selected (`None`: one).
    pub cluster: Option<String>,
}

impl SetImageDialog {
    fn listed(&self) -> &[ContainerImage] {
        match &self.containers {
            Some(Ok(list)) => &list[..list.len().min(MAX_LISTED)],
            _ => &[],
        }
    }

    /// Select container `i` and put its image in the input.
    fn select(&mut self, i: usize) {
        let image = self.listed().get(i).map(|c| c.image.clone());
        if let Some(image) = image {
            self.selected = i;
            self.input = Input::new(image);
        }
        self.error = None;
    }

    /// The write Enter sends, or why not.
    fn write(&self) -> Result<Write, String> {
        let c = self
            .listed()
            .get(self.selected)
            .ok_or("no container to set the image of")?;
        let image = self.input.value().trim();
        if image.is_empty() {
            return Err("type an image".into());
        }
        if image.contains(char::is_whitespace) {
            return Err("an image reference has no spaces".into());
        }
        if image == c.image {
            return Err(format!("{} already runs {image}", c.name));
        }
        let mut w = (*self.write).clone();
        w.op = Operation::SetImage(ContainerImage {
            name: c.name.clone(),
            image: image.to_string(),
            init: c.init,
        });
        Ok(w)
    }
}

impl SetImageDialog {
    /// The dialog for `write` (a set-image), its containers still to be read; `cluster`: the
    /// cluster named in the dialog (several are selected).
    pub fn new(write: Write, cluster: Option<String>) -> SetImageDialog {
        SetImageDialog {
            write: Box::new(write),
            containers: None,
            selected: 0,
            input: Input::default(),
            error: None,
            cluster,
        }
    }

    /// The containers arrived (false: they are another write's): the first app container (not
    /// an init one) is selected.
    pub fn images_arrived(
        &mut self,
        write: &Write,
        result: Result<Vec<ContainerImage>, String>,
    ) -> bool {
        let d = self;
        if *d.write != *write {
            return false;
        }
        let first = match &result {
            Ok(list) if list.is_empty() => {
                d.error = Some("it has no containers".into());
                None
            }
            Ok(list) => Some(list.iter().position(|c| !c.init).unwrap_or(0)),
            Err(_) => None,
        };
        d.containers = Some(result);
        if let Some(i) = first {
            d.select(i);
        }
        true
    }
}

impl Component for SetImageDialog {
    fn on_key(&mut self, key: KeyEvent, _ctx: &Ctx) -> Outcome {
        let d = self;
        match key.code {
            KeyCode::Esc => Outcome::Close.then(Outcome::Info("set image cancelled".into())),
            KeyCode::Up => {
                d.select(d.selected.saturating_sub(1));
                Outcome::Consumed
            }
            KeyCode::Down => {
                d.select((d.selected + 1).min(d.listed().len().saturating_sub(1)));
                Outcome::Consumed
            }
            KeyCode::Enter if d.containers.is_none() => {
                d.error = Some("the containers are still being read".into());
                Outcome::Consumed
            }
            KeyCode::Enter => match d.write() {
                Ok(w) => {
                    let note = match &w.op {
                        Operation::SetImage(c) => {
                            format!("setting {}'s {} to {}…", w.what(), c.name, c.image)
                        }
                        _ => format!("{} {}…", w.op.name(), w.what()),
                    };
                    // Typing the image is the confirmation.
                    Outcome::Close.then(Outcome::Write {
                        write: Box::new(w),
                        confirmed: true,
                        note: Some(note),
                    })
                }
                Err(e) => {
                    d.error = Some(e);
                    Outcome::Consumed
                }
            },
            _ => {
                d.input.handle_event(&Event::Key(key));
                d.error = None;
                Outcome::Consumed
            }
        }
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_set_image(self, area, buf)
    }
}

pub(crate) fn render_set_image(d: &SetImageDialog, area: Rect, buf: &mut Buffer) {
    let listed = d.listed();
    let rows = listed.len().max(1) as u16;
    let label = |c: &ContainerImage| {
        if c.init {
            format!("{} (init)", c.name)
        } else {
            c.name.clone()
        }
    };
    let name_w = listed
        .iter()
        .map(|c| label(c).chars().count())
        .max()
        .unwrap_or(0);
    // Wide enough for the longest container line (marker, name, image, a space before the
    // border) and the input, within the screen.
    let longest = listed
        .iter()
        .map(|c| name_w + c.image.chars().count() + 8)
        .chain([d.input.value().chars().count() + 12])
        .max()
        .unwrap_or(0);
    let width = u16::try_from(longest).unwrap_or(u16::MAX).clamp(76, 140);
    // Borders, title, a blank line, the containers, a blank line, the input, an error line.
    let r = centered(area, width, 7 + rows + u16::from(d.cluster.is_some()));
    Clear.render(r, buf);
    let mut lines = vec![Line::from(format!("Set image of {}", d.write.what())).centered()];
    if let Some(cluster) = &d.cluster {
        lines.push(
            Line::from(vec![
                Span::raw("on cluster "),
                Span::styled(format!(" {cluster} "), crate::ui::kit::cluster_style()),
            ])
            .centered(),
        );
    }
    lines.push(Line::raw(""));
    match &d.containers {
        None => lines.push(Line::styled(
            "  reading its containers…",
            Style::default().fg(Color::Gray),
        )),
        Some(Err(e)) => lines.push(Line::styled(
            format!("  {e}"),
            Style::default().fg(Color::Red),
        )),
        Some(Ok(_)) => {
            for (i, c) in listed.iter().enumerate() {
                let text = format!(
                    "{} {:<w$}  {}",
                    if i == d.selected { "▸" } else { " " },
                    label(c),
                    c.image,
                    w = name_w
                );
                let style = if i == d.selected {
                    Style::default().add_modifier(Modifier::REVERSED)
                } else {
                    Style::default()
                };
                lines.push(Line::styled(format!(" {text}"), style));
            }
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::raw(" image: "),
        Span::styled(
            d.input.value().to_string(),
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        ),
        Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
    ]));
    if let Some(e) = &d.error {
        lines.push(Line::styled(
            format!(" {e}"),
            Style::default().fg(Color::Red),
        ));
    }
    Paragraph::new(lines)
        .block(dialog_block(
            " Set image ",
            Color::Yellow,
            " ↑/↓: container  enter: set  esc: cancel ",
        ))
        .render(r, buf);
}
