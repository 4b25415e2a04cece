//! What the log view's since presets ([`Since`]) and its search ([`Matcher`]: plain, `-i`,
//! regex, inverted) are.

use regex::Regex;

use crate::ui::log_stream::StreamOptions;

/// Since presets, in the order `s` cycles them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    /// The last lines (200 unless k9s's `logger.tail` says).
    Tail(i64),
    /// Since this many seconds (k9s's `logger.sinceSeconds` other than the keys' choices).
    Seconds(i64),
    Minutes1,
    Minutes5,
    Minutes15,
    Minutes30,
    Hour1,
    /// The whole log from its first line (k9s's "head").
    All,
}

impl Since {
    pub(super) fn next(self, tail: i64) -> Self {
        match self {
            Since::Tail(_) | Since::Seconds(_) => Since::Minutes1,
            Since::Minutes1 => Since::Minutes5,
            Since::Minutes5 => Since::Minutes15,
            Since::Minutes15 => Since::Minutes30,
            Since::Minutes30 => Since::Hour1,
            Since::Hour1 => Since::All,
            Since::All => Since::Tail(tail),
        }
    }

    pub(super) fn label(self) -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed(match self {
            Since::Tail(n) => return format!("tail {n}").into(),
            Since::Seconds(s) => return format!("{s}s").into(),
            Since::Minutes1 => "1m",
            Since::Minutes5 => "5m",
            Since::Minutes15 => "15m",
            Since::Minutes30 => "30m",
            Since::Hour1 => "1h",
            Since::All => "head (all)",
        })
    }

    pub(super) fn apply(self, o: &mut StreamOptions) {
        let (tail, since) = match self {
            Since::Tail(n) => (Some(n), None),
            Since::Seconds(s) => (None, Some(s)),
            Since::Minutes1 => (None, Some(60)),
            Since::Minutes5 => (None, Some(300)),
            Since::Minutes15 => (None, Some(900)),
            Since::Minutes30 => (None, Some(1800)),
            Since::Hour1 => (None, Some(3600)),
            Since::All => (None, None),
        };
        o.tail_lines = tail;
        o.since_seconds = since;
    }
}

/// A search or filter pattern: substring, or `~regex`; case-insensitive.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub raw: String,
    kind: MatchKind,
}

#[derive(Debug, Clone)]
enum MatchKind {
    Substring(String),
    Regex(Regex),
}

impl Matcher {
    pub fn parse(raw: &str) -> Result<Self, String> {
        let kind = match raw.strip_prefix('~') {
            Some(re) => MatchKind::Regex(
                regex::RegexBuilder::new(re)
                    .case_insensitive(true)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| {
                        format!(
                            "invalid regex: {}",
                            e.to_string().lines().last().unwrap_or("")
                        )
                    })?,
            ),
            None => MatchKind::Substring(raw.to_lowercase()),
        };
        Ok(Self {
            raw: raw.to_string(),
            kind,
        })
    }

    /// Byte ranges of the matches in `text`.
    pub fn find(&self, text: &str) -> Vec<(usize, usize)> {
        match &self.kind {
            MatchKind::Regex(re) => re
                .find_iter(text)
                .filter(|m| !m.is_empty())
                .map(|m| (m.start(), m.end()))
                .collect(),
            MatchKind::Substring(s) if s.is_empty() => Vec::new(),
            MatchKind::Substring(s) => {
                // Lower-casing can change byte lengths outside ASCII: match on ASCII-lowered
                // text (same offsets) and fall back to a char-wise scan otherwise.
                let hay = text.to_ascii_lowercase();
                if text.is_ascii() && s.is_ascii() {
                    hay.match_indices(s.as_str())
                        .map(|(i, m)| (i, i + m.len()))
                        .collect()
                } else {
                    let lower: Vec<(usize, String)> = text
                        .char_indices()
                        .map(|(i, c)| (i, c.to_lowercase().collect()))
                        .collect();
                    let mut out = Vec::new();
                    let mut k = 0;
                    while k < lower.len() {
                        let mut acc = String::new();
                        let mut j = k;
                        while j < lower.len() && acc.len() < s.len() {
                            acc.push_str(&lower[j].1);
                            j += 1;
                        }
                        if acc == *s {
                            let end = lower.get(j).map_or(text.len(), |x| x.0);
                            out.push((lower[k].0, end));
                            k = j;
                        } else {
                            k += 1;
                        }
                    }
                    out
                }
            }
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        match &self.kind {
            MatchKind::Regex(re) => re.is_match(text),
            MatchKind::Substring(s) => !self.find(text).is_empty() || s.is_empty(),
        }
    }
}
