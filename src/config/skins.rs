//! k9s skins (`skins/<name>.yaml`; k9s `internal/config/styles.go`): the colours kinformer maps
//! onto its own styles. Keys kinformer has no place for are ignored; a colour is a CSS name
//! (`dodgerblue`), `#rrggbb`, or `default` (the terminal's own).
//!
//! ```yaml
//! k9s:
//!   body: { fgColor: dodgerblue, bgColor: black, logoColor: orange }
//!   frame:
//!     border: { fgColor: dodgerblue, focusColor: aqua }
//!     menu: { fgColor: white, keyColor: dodgerblue }
//!     title: { fgColor: aqua, highlightColor: orange, counterColor: papayawhip, filterColor: seagreen }
//!     status: { newColor: lightskyblue, modifyColor: greenyellow, addColor: white, errorColor: orangered, killColor: mediumpurple, completedColor: gray }
//!   views:
//!     table:
//!       fgColor: aqua
//!       cursorFgColor: black
//!       cursorBgColor: aqua
//!       header: { fgColor: white, bgColor: black, sorterColor: orange }
//! ```

use std::path::Path;

use serde::Deserialize;

use super::error::{Error, Problem};
use super::yaml::{locate_value, parse as parse_yaml};

/// A skin colour: the terminal's default, or an RGB value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkinColor {
    Default,
    Rgb(u8, u8, u8),
}

/// Parse a k9s colour.
pub fn parse_color(s: &str) -> Result<SkinColor, String> {
    let t = s.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("default") {
        return Ok(SkinColor::Default);
    }
    let c = csscolorparser::parse(t).map_err(|e| format!("colour {t:?}: {e}"))?;
    let [r, g, b, _] = c.to_rgba8();
    Ok(SkinColor::Rgb(r, g, b))
}

/// The colours a skin sets (each optional: unset keeps kinformer's own).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skin {
    pub name: String,
    pub body_fg: Option<SkinColor>,
    pub body_bg: Option<SkinColor>,
    pub logo: Option<SkinColor>,
    pub border: Option<SkinColor>,
    pub border_focus: Option<SkinColor>,
    pub menu_fg: Option<SkinColor>,
    pub menu_key: Option<SkinColor>,
    pub title_fg: Option<SkinColor>,
    pub title_highlight: Option<SkinColor>,
    pub title_counter: Option<SkinColor>,
    pub title_filter: Option<SkinColor>,
    pub status_new: Option<SkinColor>,
    pub status_modify: Option<SkinColor>,
    pub status_add: Option<SkinColor>,
    pub status_error: Option<SkinColor>,
    pub status_kill: Option<SkinColor>,
    pub status_completed: Option<SkinColor>,
    pub table_fg: Option<SkinColor>,
    pub table_bg: Option<SkinColor>,
    pub cursor_fg: Option<SkinColor>,
    pub cursor_bg: Option<SkinColor>,
    pub mark: Option<SkinColor>,
    pub header_fg: Option<SkinColor>,
    pub header_bg: Option<SkinColor>,
    pub sorter: Option<SkinColor>,
}

type C = Option<String>;

#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    k9s: Root,
}

#[derive(Deserialize, Default)]
struct Root {
    #[serde(default)]
    body: Body,
    #[serde(default)]
    frame: Frame,
    #[serde(default)]
    views: Views,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Body {
    fg_color: C,
    bg_color: C,
    logo_color: C,
}

#[derive(Deserialize, Default)]
struct Frame {
    #[serde(default)]
    border: Border,
    #[serde(default)]
    menu: Menu,
    #[serde(default)]
    title: Title,
    #[serde(default)]
    status: Status,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Border {
    fg_color: C,
    focus_color: C,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Menu {
    fg_color: C,
    key_color: C,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Title {
    fg_color: C,
    highlight_color: C,
    counter_color: C,
    filter_color: C,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Status {
    new_color: C,
    modify_color: C,
    add_color: C,
    error_color: C,
    kill_color: C,
    completed_color: C,
}

#[derive(Deserialize, Default)]
struct Views {
    #[serde(default)]
    table: Table,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Table {
    fg_color: C,
    bg_color: C,
    cursor_fg_color: C,
    cursor_bg_color: C,
    mark_color: C,
    #[serde(default)]
    header: Header,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Header {
    fg_color: C,
    bg_color: C,
    sorter_color: C,
}

/// Parse a skin file; its name is the file's stem.
pub fn parse(text: &str, path: &Path) -> Result<Skin, Error> {
    let f: Option<File> = parse_yaml(text, path)?;
    let k = f.unwrap_or_default().k9s;
    let color = |v: &C| -> Result<Option<SkinColor>, Error> {
        match v {
            None => Ok(None),
            Some(s) => parse_color(s).map(Some).map_err(|why| {
                let (line, column) = locate_value(text, s, 0);
                Error::Parse(Problem::new(path, line, column, why))
            }),
        }
    };
    let t = &k.views.table;
    Ok(Skin {
        name: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        body_fg: color(&k.body.fg_color)?,
        body_bg: color(&k.body.bg_color)?,
        logo: color(&k.body.logo_color)?,
        border: color(&k.frame.border.fg_color)?,
        border_focus: color(&k.frame.border.focus_color)?,
        menu_fg: color(&k.frame.menu.fg_color)?,
        menu_key: color(&k.frame.menu.key_color)?,
        title_fg: color(&k.frame.title.fg_color)?,
        title_highlight: color(&k.frame.title.highlight_color)?,
        title_counter: color(&k.frame.title.counter_color)?,
        title_filter: color(&k.frame.title.filter_color)?,
        status_new: color(&k.frame.status.new_color)?,
        status_modify: color(&k.frame.status.modify_color)?,
        status_add: color(&k.frame.status.add_color)?,
        status_error: color(&k.frame.status.error_color)?,
        status_kill: color(&k.frame.status.kill_color)?,
        status_completed: color(&k.frame.status.completed_color)?,
        table_fg: color(&t.fg_color)?,
        table_bg: color(&t.bg_color)?,
        cursor_fg: color(&t.cursor_fg_color)?,
        cursor_bg: color(&t.cursor_bg_color)?,
        mark: color(&t.mark_color)?,
        header_fg: color(&t.header.fg_color)?,
        header_bg: color(&t.header.bg_color)?,
        sorter: color(&t.header.sorter_color)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_names_hex_and_default_are_colours() {
        assert_eq!(parse_color("dodgerblue"), Ok(SkinColor::Rgb(30, 144, 255)));
        assert_eq!(parse_color("#ff0000"), Ok(SkinColor::Rgb(255, 0, 0)));
        assert_eq!(parse_color("default"), Ok(SkinColor::Default));
        assert!(parse_color("blurple").is_err());
    }

    #[test]
    fn a_skin_maps_known_keys_and_ignores_the_rest() {
        let s = parse(
            "k9s:\n  body:\n    fgColor: white\n  unknownThing: {a: 1}\n  views:\n    table:\n      cursorBgColor: aqua\n      header:\n        fgColor: '#000000'\n",
            Path::new("/k/skins/night.yaml"),
        )
        .unwrap();
        assert_eq!(s.name, "night");
        assert_eq!(s.cursor_bg, Some(SkinColor::Rgb(0, 255, 255)));
        assert_eq!(s.header_fg, Some(SkinColor::Rgb(0, 0, 0)));
        assert_eq!(s.table_fg, None);
    }
}
