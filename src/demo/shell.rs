//! The demo's simulated container shell: what `kubectl exec` reaches in a demo pod. It is clearly
//! a simulation — no process runs — answering a few commands (`ls`, `cat`, `env`, `hostname`,
//! `ps`, `echo`, `pwd`, `cd`, `true`, `false`, `exit N`, `sh -c ...`) over a fake filesystem
//! built from the pod spec: the container's environment, the mounted ConfigMaps and Secrets (keys
//! as files), `/etc/hostname`, `/etc/hosts`, `/etc/os-release` and a banner in `/README`.
//!
//! [`Shell`] is a pure line interpreter: [`Shell::run_line`] gives the output, error text and
//! whether the shell exited; the websocket side (`super::exec`) feeds it bytes and handles the
//! terminal line discipline ([`LineEditor`]) when a TTY is asked for.

use std::collections::BTreeMap;

/// The fake filesystem and environment of one container.
#[derive(Debug, Clone, Default)]
pub struct ContainerImage {
    /// Absolute path → contents.
    pub files: BTreeMap<String, String>,
    /// `NAME=value`, in the pod spec's order.
    pub env: Vec<(String, String)>,
    pub hostname: String,
    /// What `ps` shows for PID 1.
    pub command: String,
}

/// The outcome of one command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    /// `Some(code)` when the line ended the shell (`exit N`).
    pub exit: Option<i32>,
    /// The line's status (`$?`).
    pub status: i32,
    /// The line `exec`'d a shell: the session becomes interactive.
    pub interactive: bool,
}

/// A shell session in one container.
#[derive(Debug, Clone)]
pub struct Shell {
    image: ContainerImage,
    cwd: String,
    last_status: i32,
}

fn normalize(cwd: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{cwd}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for p in joined.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The first `;`, `&&` or `||` outside quotes: (byte index, separator).
fn next_separator(line: &str) -> Option<(usize, &'static str)> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') if quote != Some('\'') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ';') => return Some((i, ";")),
            (None, '&') if bytes.get(i + 1) == Some(&b'&') => return Some((i, "&&")),
            (None, '|') if bytes.get(i + 1) == Some(&b'|') => return Some((i, "||")),
            _ => {}
        }
    }
    None
}

/// Split a command line into words (single and double quotes, backslash escapes).
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unterminated quoted string".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => {
                            if let Some(c) = chars.next() {
                                cur.push(c);
                            }
                        }
                        Some(c) => cur.push(c),
                        None => return Err("unterminated quoted string".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    cur.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

impl Shell {
    pub fn new(image: ContainerImage) -> Self {
        Self {
            image,
            cwd: "/".into(),
            last_status: 0,
        }
    }

    /// A terminal resize: `$COLUMNS` and `$LINES` follow it.
    pub fn set_size(&mut self, columns: u64, lines: u64) {
        self.image
            .env
            .retain(|(k, _)| k != "COLUMNS" && k != "LINES");
        self.image.env.push(("COLUMNS".into(), columns.to_string()));
        self.image.env.push(("LINES".into(), lines.to_string()));
    }

    /// The prompt shown before each line on a TTY.
    pub fn prompt(&self) -> String {
        format!("{}:{}$ ", self.image.hostname, self.cwd)
    }

    fn is_dir(&self, path: &str) -> bool {
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        path == "/" || self.image.files.keys().any(|k| k.starts_with(&prefix))
    }

    fn env_value(&self, name: &str) -> Option<String> {
        match name {
            "?" => Some(self.last_status.to_string()),
            "PWD" => Some(self.cwd.clone()),
            "HOSTNAME" => Some(self.image.hostname.clone()),
            _ => self
                .image
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone()),
        }
    }

    /// `$NAME`, `${NAME}` and `$?` expansion (outside single quotes is not tracked: the
    /// simulation expands everywhere except after a backslash).
    fn expand(&self, line: &str) -> String {
        let mut out = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\\' {
                out.push(c);
                if let Some(n) = chars.next() {
                    out.push(n);
                }
                continue;
            }
            if c != '$' {
                out.push(c);
                continue;
            }
            let name: String = match chars.peek() {
                Some('{') => {
                    chars.next();
                    let mut n = String::new();
                    for c in chars.by_ref() {
                        if c == '}' {
                            break;
                        }
                        n.push(c);
                    }
                    n
                }
                Some('?') => {
                    chars.next();
                    "?".into()
                }
                _ => {
                    let mut n = String::new();
                    while let Some(&c) = chars.peek() {
                        if c.is_ascii_alphanumeric() || c == '_' {
                            n.push(c);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    if n.is_empty() {
                        out.push('$');
                        continue;
                    }
                    n
                }
            };
            out.push_str(&self.env_value(&name).unwrap_or_default());
        }
        out
    }

    /// Run one line (several commands may be separated by `;` or `&&`).
    pub fn run_line(&mut self, line: &str) -> Output {
        let mut total = Output::default();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            total.status = self.last_status;
            return total;
        }
        let mut rest = trimmed;
        let mut skip = false;
        loop {
            let next = next_separator(rest);
            let (cmd, sep, tail) = match next {
                Some((i, sep)) => (&rest[..i], sep, &rest[i + sep.len()..]),
                None => (rest, "", ""),
            };
            if !skip {
                let o = self.run_command(cmd);
                total.stdout.push_str(&o.stdout);
                total.stderr.push_str(&o.stderr);
                total.status = o.status;
                self.last_status = o.status;
                if o.exit.is_some() || o.interactive {
                    total.exit = o.exit;
                    total.interactive = o.interactive;
                    return total;
                }
            }
            skip = match sep {
                "&&" => self.last_status != 0,
                "||" => self.last_status == 0,
                _ => false,
            };
            if sep.is_empty() {
                return total;
            }
            rest = tail;
        }
    }

    fn run_command(&mut self, cmd: &str) -> Output {
        let expanded = self.expand(cmd);
        let mut words = match split_words(&expanded) {
            Ok(w) => w,
            Err(e) => return err(format!("sh: syntax error: {e}\n"), 2),
        };
        // Redirections are accepted and ignored (output always goes to the terminal).
        words.retain(|w| !(w.starts_with('>') || w.starts_with("2>") || w.starts_with("1>")));
        if words.first().is_some_and(|w| w == "exec") {
            words.remove(0);
            let shell = words
                .first()
                .is_some_and(|w| SHELLS.contains(&w.rsplit('/').next().unwrap_or(w)));
            if shell && words.len() == 1 {
                return Output {
                    interactive: true,
                    ..Output::default()
                };
            }
            let rest = words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" ");
            let mut o = self.run_command(&rest);
            o.exit = Some(o.status);
            return o;
        }
        let Some((name, args)) = words.split_first() else {
            return Output::default();
        };
        let base = name.rsplit('/').next().unwrap_or(name);
        match base {
            "exit" => {
                let code = match args.first() {
                    None => self.last_status,
                    Some(a) => match a.parse::<i32>() {
                        Ok(n) => n & 0xff,
                        Err(_) => return err(format!("sh: exit: Illegal number: {a}\n"), 2),
                    },
                };
                Output {
                    exit: Some(code),
                    status: code,
                    ..Output::default()
                }
            }
            "true" | ":" => Output::default(),
            "command" | "which" | "type" => {
                let names: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
                let mut o = Output::default();
                for n in names {
                    if COMMANDS.contains(&n.as_str()) {
                        o.stdout.push_str(&format!("/bin/{n}\n"));
                    } else {
                        o.status = 1;
                    }
                }
                o
            }
            "false" => Output {
                status: 1,
                ..Output::default()
            },
            "echo" => {
                let (newline, args) = match args.first().map(String::as_str) {
                    Some("-n") => (false, &args[1..]),
                    _ => (true, args),
                };
                let mut s = args.join(" ");
                if newline {
                    s.push('\n');
                }
                ok(s)
            }
            "hostname" => ok(format!("{}\n", self.image.hostname)),
            "pwd" => ok(format!("{}\n", self.cwd)),
            "cd" => {
                let target = normalize(&self.cwd, args.first().map(String::as_str).unwrap_or("/"));
                if self.is_dir(&target) {
                    self.cwd = target;
                    Output::default()
                } else {
                    err(format!("sh: cd: can't cd to {}: No such file or directory\n", args[0]), 2)
                }
            }
            "env" | "printenv" => {
                if let Some(n) = args.first() {
                    return match self.env_value(n) {
                        Some(v) => ok(format!("{v}\n")),
                        None => Output {
                            status: 1,
                            ..Output::default()
                        },
                    };
                }
                let mut s = format!("HOSTNAME={}\nPWD={}\n", self.image.hostname, self.cwd);
                for (k, v) in &self.image.env {
                    s.push_str(&format!("{k}={v}\n"));
                }
                ok(s)
            }
            "ps" => ok(format!(
                "PID   USER     TIME  COMMAND\n    1 root      0:00 {}\n    7 root      0:00 sh\n    9 root      0:00 ps {}\n",
                self.image.command,
                args.join(" ")
            )
            .replace(" \n", "\n")),
            "ls" => self.ls(args),
            "cat" => {
                if args.is_empty() {
                    return err("cat: reading stdin is not simulated\n".into(), 1);
                }
                let mut o = Output::default();
                for a in args {
                    let p = normalize(&self.cwd, a);
                    match self.image.files.get(&p) {
                        Some(c) => o.stdout.push_str(c),
                        None if self.is_dir(&p) => {
                            o.stderr.push_str("cat: read error: Is a directory\n");
                            o.status = 1;
                        }
                        None => {
                            o.stderr
                                .push_str(&format!("cat: can't open '{a}': No such file or directory\n"));
                            o.status = 1;
                        }
                    }
                }
                o
            }
            "sh" | "ash" => match args.first().map(String::as_str) {
                Some("-c") => {
                    let script = args.get(1).cloned().unwrap_or_default();
                    let mut sub = self.clone();
                    let o = sub.run_line(&script);
                    Output {
                        exit: None,
                        status: o.exit.unwrap_or(o.status),
                        ..o
                    }
                }
                _ => err(
                    format!("{base}: nested interactive shells are not simulated\n"),
                    1,
                ),
            },
            "help" => ok(HELP.to_string()),
            other => err(format!("sh: {other}: not found (this is the kinformer demo's simulated shell; try `help`)\n"), 127),
        }
    }

    fn ls(&self, args: &[String]) -> Output {
        let long = args.iter().any(|a| a.starts_with('-') && a.contains('l'));
        let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
        let targets: Vec<String> = if paths.is_empty() {
            vec![self.cwd.clone()]
        } else {
            paths.iter().map(|p| normalize(&self.cwd, p)).collect()
        };
        let mut o = Output::default();
        for t in targets {
            if let Some(c) = self.image.files.get(&t) {
                o.stdout.push_str(&if long {
                    format!("-rw-r--r--    1 root     root  {:>8} {t}\n", c.len())
                } else {
                    format!("{t}\n")
                });
                continue;
            }
            if !self.is_dir(&t) {
                o.stderr
                    .push_str(&format!("ls: {t}: No such file or directory\n"));
                o.status = 1;
                continue;
            }
            let prefix = if t == "/" {
                "/".to_string()
            } else {
                format!("{t}/")
            };
            let mut entries: Vec<(String, bool)> = Vec::new();
            for k in self.image.files.keys() {
                if let Some(rest) = k.strip_prefix(&prefix) {
                    let (name, dir) = match rest.split_once('/') {
                        Some((d, _)) => (d.to_string(), true),
                        None => (rest.to_string(), false),
                    };
                    if !entries.iter().any(|(n, _)| *n == name) {
                        entries.push((name, dir));
                    }
                }
            }
            for (name, dir) in entries {
                if long {
                    let size = self
                        .image
                        .files
                        .get(&format!("{prefix}{name}"))
                        .map_or(4096, String::len);
                    let mode = if dir { "drwxr-xr-x" } else { "-rw-r--r--" };
                    o.stdout
                        .push_str(&format!("{mode}    1 root     root  {size:>8} {name}\n"));
                } else {
                    o.stdout.push_str(&format!("{name}\n"));
                }
            }
        }
        o
    }
}

/// The shells the demo's containers have (`bash` is not one of them, as in busybox images).
const SHELLS: &[&str] = &["sh", "ash"];

/// Every simulated command.
const COMMANDS: &[&str] = &[
    "sh", "ash", "ls", "cat", "cd", "pwd", "env", "printenv", "hostname", "ps", "echo", "true",
    "false", "exit", "command", "which", "help",
];

const HELP: &str = "kinformer demo shell (a simulation: no process runs in demo pods)\n\
commands: ls [-l] [PATH], cat FILE, cd DIR, pwd, env [NAME], hostname, ps, echo [-n] ...,\n\
          true, false, sh -c 'CMD; CMD && CMD', exit [N]\n";

fn ok(stdout: String) -> Output {
    Output {
        stdout,
        ..Output::default()
    }
}

fn err(stderr: String, status: i32) -> Output {
    Output {
        stderr,
        status,
        ..Output::default()
    }
}

/// The terminal line discipline a TTY gives a shell: typed bytes are echoed, backspace erases,
/// Enter (`\r` or `\n`) completes a line, ctrl-c drops it, ctrl-d on an empty line is end of
/// input.
#[derive(Debug, Default)]
pub struct LineEditor {
    line: String,
}

/// What one chunk of typed input produced.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Edited {
    /// Bytes to echo back to the terminal.
    pub echo: String,
    /// Completed lines.
    pub lines: Vec<String>,
    /// ctrl-d on an empty line.
    pub eof: bool,
}

impl LineEditor {
    pub fn feed(&mut self, input: &str) -> Edited {
        let mut out = Edited::default();
        for c in input.chars() {
            match c {
                '\r' | '\n' => {
                    out.echo.push_str("\r\n");
                    out.lines.push(std::mem::take(&mut self.line));
                }
                '\u{7f}' | '\u{8}' => {
                    if self.line.pop().is_some() {
                        out.echo.push_str("\u{8} \u{8}");
                    }
                }
                '\u{3}' => {
                    out.echo.push_str("^C\r\n");
                    self.line.clear();
                    out.lines.push(String::new());
                }
                '\u{4}' if self.line.is_empty() => {
                    out.eof = true;
                    return out;
                }
                c if c.is_control() && c != '\t' => {}
                c => {
                    out.echo.push(c);
                    self.line.push(c);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell() -> Shell {
        let mut files = BTreeMap::new();
        files.insert("/etc/hostname".to_string(), "web-1\n".to_string());
        files.insert(
            "/etc/config/app.yaml".to_string(),
            "port: 8080\n".to_string(),
        );
        Shell::new(ContainerImage {
            files,
            env: vec![("MODE".into(), "prod".into())],
            hostname: "web-1".into(),
            command: "nginx -g daemon off;".into(),
        })
    }

    #[test]
    fn commands_read_the_fake_filesystem_and_environment() {
        let mut s = shell();
        assert_eq!(s.run_line("ls /").stdout, "etc\n");
        assert_eq!(s.run_line("ls /etc").stdout, "config\nhostname\n");
        assert_eq!(
            s.run_line("cat /etc/config/app.yaml").stdout,
            "port: 8080\n"
        );
        assert_eq!(s.run_line("echo $MODE ${HOSTNAME}").stdout, "prod web-1\n");
        assert!(s.run_line("env").stdout.contains("MODE=prod\n"));
        assert_eq!(s.run_line("cd /etc && pwd").stdout, "/etc\n");
        assert_eq!(s.run_line("cat hostname").stdout, "web-1\n");
        let o = s.run_line("cat /nope");
        assert_eq!(o.status, 1);
        assert!(o.stderr.contains("No such file"));
        let o = s.run_line("vim");
        assert_eq!(o.status, 127);
        assert!(s.run_line("ps").stdout.contains("1 root      0:00 nginx"));
    }

    #[test]
    fn exit_codes_and_sh_dash_c() {
        let mut s = shell();
        assert_eq!(s.run_line("false; echo $?").stdout, "1\n");
        assert_eq!(s.run_line("false && echo no").stdout, "");
        let o = s.run_line("sh -c 'echo hi; exit 3'");
        assert_eq!((o.stdout.as_str(), o.status, o.exit), ("hi\n", 3, None));
        let o = s.run_line("exit 7");
        assert_eq!(o.exit, Some(7));
        // What the dashboard sends to open a shell: bash is missing, so sh is exec'd.
        let o = s.run_line("command -v bash >/dev/null 2>&1 && exec bash || exec sh");
        assert!(o.interactive);
        assert_eq!(s.run_line("bash").status, 127);
        assert_eq!(
            split_words(r#"a 'b c' "d\"e" f\ g"#).unwrap(),
            ["a", "b c", "d\"e", "f g"]
        );
    }

    #[test]
    fn the_line_editor_echoes_and_completes_lines() {
        let mut e = LineEditor::default();
        let o = e.feed("lx\u{7f}s\r");
        assert_eq!(o.lines, ["ls"]);
        assert_eq!(o.echo, "lx\u{8} \u{8}s\r\n");
        assert!(e.feed("\u{4}").eof);
    }
}
