//! Every documented command is a test (issue 63): each fenced block of the README, `docs/`
//! and the examples' READMEs that shows a command (`$ …`) and its output is run from the
//! workspace root and its output compared, so a documented example cannot go false
//! unnoticed.
//!
//! The runner is a small shell of its own (no `sh -c`, so it runs the same everywhere):
//! - a command line is pipelines joined by `&&`; a pipeline is commands joined by `|`, each
//!   with optional `< FILE`, `> FILE` and `2>&1`; words split as the shell splits them
//!   (quotes, backslashes, a trailing `\` continues the line);
//! - `capi-machinepool …` and `cargo run [-q] -p capi-machinepool-cli -- …` run the binary
//!   this test was built with; `cargo run [-q] -p PKG --example NAME [-- …]` runs that
//!   example's binary from the same target directory (built with `cargo build` when absent);
//!   `echo $?` prints the exit status of the command before; anything else runs as the
//!   program of that name (`sed`, `cp`, …);
//! - what the block shows after the command is compared with standard output and standard
//!   error together, in the order written, line by line with trailing blanks ignored: a
//!   line `...` stands for any number of lines and `[..]` for any text within a line (the
//!   conventions of `trycmd`), for what varies (times, temporary paths).
//!
//! A block whose output cannot be reproduced (a load test's measurement) is preceded by an
//! HTML comment `<!-- not run: REASON -->`, shown in the source of the page; the runner lists
//! those it passed over, and a reason is required.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The pages whose command blocks run.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md")];
    for dir in ["docs", "examples", "crates"] {
        let mut found = Vec::new();
        collect_markdown(&root.join(dir), 0, &mut found);
        found.sort();
        pages.extend(found);
    }
    pages
}

/// Markdown files under `dir` (its README.md files and, in `docs/`, every page), two levels
/// deep at most.
fn collect_markdown(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() && depth < 2 {
            collect_markdown(&path, depth + 1, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// A fenced block that shows commands: where it starts and its lines.
#[derive(Debug)]
struct Block {
    page: PathBuf,
    line: usize,
    lines: Vec<String>,
    not_run: Option<String>,
}

/// The fenced blocks of `text` with a line starting `$ `.
fn command_blocks(page: &Path, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, Vec<String>, Option<String>)> = None;
    let mut last_comment: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match open.take() {
            Some((start, lines, not_run)) if fence => {
                if lines.iter().any(|l| l.starts_with("$ ")) {
                    blocks.push(Block {
                        page: page.to_path_buf(),
                        line: start + 1,
                        lines,
                        not_run,
                    });
                }
            }
            Some((start, mut lines, not_run)) => {
                lines.push(line.to_owned());
                open = Some((start, lines, not_run));
            }
            None if fence => {
                open = Some((i, Vec::new(), last_comment.take()));
            }
            None => {
                if let Some(reason) = line
                    .trim()
                    .strip_prefix("<!-- not run:")
                    .and_then(|r| r.strip_suffix("-->"))
                {
                    last_comment = Some(reason.trim().to_owned());
                } else if !line.trim().is_empty() {
                    last_comment = None;
                }
            }
        }
    }
    blocks
}

/// One command of a block and the output shown after it.
struct Step {
    command: String,
    expected: Vec<String>,
}

/// The block's commands (continuation lines joined) and what each shows.
fn steps(block: &Block) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut lines = block.lines.iter();
    while let Some(line) = lines.next() {
        if let Some(command) = line.strip_prefix("$ ") {
            let mut command = command.to_owned();
            while command.ends_with('\\') {
                command.pop();
                match lines.next() {
                    Some(next) => command.push_str(next.trim_start()),
                    None => break,
                }
            }
            steps.push(Step {
                command,
                expected: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.expected.push(line.clone());
        }
    }
    steps
}

/// A word or an operator of a command line.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Word(String),
    Pipe,
    And,
    Out,
    In,
    ErrToOut,
}

/// Splits a command line as the shell does (quotes, backslashes, operators).
fn tokens(line: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c if c.is_whitespace() => out.extend(word.take().map(Token::Word)),
            '|' | '&' | '>' | '<' => {
                let mut op = c.to_string();
                if word.as_deref() == Some("2") && c == '>' {
                    word = None;
                    op.insert(0, '2');
                }
                out.extend(word.take().map(Token::Word));
                while let Some(&next) = chars.peek() {
                    if matches!(next, '&' | '1' | '>') && op.len() < 4 {
                        op.push(next);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(match op.as_str() {
                    "|" => Token::Pipe,
                    "&&" => Token::And,
                    ">" => Token::Out,
                    "<" => Token::In,
                    "2>&1" => Token::ErrToOut,
                    other => panic!("operator `{other}` is not supported in `{line}`"),
                });
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word.map(Token::Word));
    out
}

/// One program of a pipeline.
#[derive(Debug, Default)]
struct Simple {
    argv: Vec<String>,
    stdin: Option<String>,
    stdout: Option<String>,
}

/// `&&`-joined pipelines of `|`-joined commands.
fn parse(line: &str) -> Vec<Vec<Simple>> {
    let mut list = vec![vec![Simple::default()]];
    let mut tokens = tokens(line).into_iter();
    while let Some(token) = tokens.next() {
        let pipeline = list.last_mut().unwrap();
        let simple = pipeline.last_mut().unwrap();
        match token {
            Token::Word(w) => simple.argv.push(w),
            Token::Pipe => pipeline.push(Simple::default()),
            Token::And => list.push(vec![Simple::default()]),
            Token::Out => match tokens.next() {
                Some(Token::Word(file)) => simple.stdout = Some(file),
                _ => panic!("`>` without a file in `{line}`"),
            },
            Token::In => match tokens.next() {
                Some(Token::Word(file)) => simple.stdin = Some(file),
                _ => panic!("`<` without a file in `{line}`"),
            },
            // Standard error goes where standard output goes already: every command's is
            // captured with the output.
            Token::ErrToOut => {}
        }
    }
    list
}

/// The target directory this test runs from (`target/debug`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// The program and arguments a documented command runs, or why it cannot run here.
fn program(argv: &[String], last_status: i32) -> Result<(Command, Vec<String>), String> {
    let args = |from: usize| argv[from..].to_vec();
    match argv.first().map(String::as_str) {
        Some("capi-machinepool") => Ok((
            Command::new(env!("CARGO_BIN_EXE_capi-machinepool")),
            args(1),
        )),
        Some("cargo") => cargo_run(argv),
        Some("echo") if argv.get(1).is_some_and(|a| a == "$?") => {
            let mut echo = Command::new("echo");
            echo.arg(last_status.to_string());
            Ok((echo, Vec::new()))
        }
        Some("bash" | "sh") => Err(format!(
            "a script is not run by the documentation test: {argv:?} (mark the block `<!-- not run: REASON -->`)"
        )),
        Some(name) => Ok((Command::new(name), args(1))),
        None => Err("an empty command".to_owned()),
    }
}

/// `cargo run [-q] -p PKG [--example NAME] [-- ARGS]` as the binary it runs: the CLI this
/// test was built with, or the example's binary in the same target directory, which
/// `cargo test --workspace --all-targets` (the README's test command) builds before the
/// tests run. No cargo is run from here: a nested build would resolve other features than
/// the workspace's and compile the dependencies again.
fn cargo_run(argv: &[String]) -> Result<(Command, Vec<String>), String> {
    let split = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    let (cargo, args) = (&argv[..split], argv.get(split + 1..).unwrap_or_default());
    let flag = |name: &str| {
        cargo
            .iter()
            .position(|a| a == name)
            .and_then(|i| cargo.get(i + 1))
            .cloned()
    };
    if cargo.get(1).map(String::as_str) != Some("run") {
        return Err(format!(
            "only `cargo run` is run by the documentation test: {argv:?} (show the command in a block without output, or mark the block `<!-- not run: REASON -->`)"
        ));
    }
    let package = flag("-p").ok_or_else(|| format!("`cargo run` without `-p`: {argv:?}"))?;
    match (package.as_str(), flag("--example")) {
        ("capi-machinepool-cli", None) => Ok((
            Command::new(env!("CARGO_BIN_EXE_capi-machinepool")),
            args.to_vec(),
        )),
        (_, Some(example)) => {
            let exe = example_binary(&example)?;
            Ok((Command::new(exe), args.to_vec()))
        }
        (package, None) => Err(format!(
            "`cargo run -p {package}` is not run here: {argv:?}"
        )),
    }
}

/// The binary of the example `name`, built with `cargo build --workspace --examples` (once
/// per test process; a no-op when fresh). `cargo test --all-targets` builds the examples only
/// as tests (their `main` is not run), and `cargo build` writes `examples/NAME`. The build
/// resolves the features the test build did, so it reuses every dependency and links the
/// examples only.
fn example_binary(name: &str) -> Result<PathBuf, String> {
    static BUILT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let out = Command::new(cargo)
                .current_dir(capi_test_support::workspace_root())
                .args(["build", "-q", "--workspace", "--examples"])
                .output()
                .map_err(|e| format!("cannot run cargo: {e}"))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "cargo build --workspace --examples failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                ))
            }
        })
        .clone()?;
    let exe = target_dir().join("examples").join(name);
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(format!(
            "no example {name} in {}",
            target_dir().join("examples").display()
        ))
    }
}

/// Runs one command line from `root`; its combined output and exit status, or why it
/// could not run.
fn run_line(
    root: &Path,
    line: &str,
    last_status: i32,
    scratch: &Path,
) -> Result<(String, i32), String> {
    let capture = scratch.join("output");
    let sink = File::create(&capture).unwrap();
    let mut status = 0;
    for pipeline in parse(line) {
        status = run_pipeline(root, &pipeline, last_status, &sink)?;
        if status != 0 {
            break;
        }
    }
    drop(sink);
    let mut output = String::new();
    File::open(&capture)
        .unwrap()
        .read_to_string(&mut output)
        .unwrap();
    Ok((output, status))
}

/// Runs a pipeline, every command's standard error and the last one's standard output into
/// `sink`; the last command's exit status (as the shell reports it).
fn run_pipeline(
    root: &Path,
    pipeline: &[Simple],
    last_status: i32,
    sink: &File,
) -> Result<i32, String> {
    let mut children: Vec<Child> = Vec::new();
    let mut previous: Option<std::process::ChildStdout> = None;
    for (i, simple) in pipeline.iter().enumerate() {
        let (mut command, args) = program(&simple.argv, last_status)?;
        command.args(args).current_dir(root);
        command.stderr(sink.try_clone().unwrap());
        match (&simple.stdin, previous.take()) {
            (Some(file), _) => {
                command.stdin(File::open(root.join(file)).map_err(|e| format!("{file}: {e}"))?)
            }
            (None, Some(pipe)) => command.stdin(pipe),
            (None, None) => command.stdin(Stdio::null()),
        };
        let last = i + 1 == pipeline.len();
        match &simple.stdout {
            Some(file) => {
                command.stdout(File::create(root.join(file)).map_err(|e| format!("{file}: {e}"))?)
            }
            None if last => command.stdout(sink.try_clone().unwrap()),
            None => command.stdout(Stdio::piped()),
        };
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run {:?}: {e}", simple.argv))?;
        previous = child.stdout.take();
        children.push(child);
    }
    drop(previous);
    let mut status = 0;
    for mut child in children {
        status = child.wait().unwrap().code().unwrap_or(128);
    }
    Ok(status)
}

/// Whether `actual` matches the `expected` lines (`...` for any lines, `[..]` for any text).
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual.split_first().is_some_and(|(line, more)| {
            line_matches(first.trim_end(), line.trim_end()) && matches(rest, more)
        }),
    }
}

/// Whether `actual` is `pattern` with each `[..]` standing for any text.
fn line_matches(pattern: &str, actual: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Runs every step of `block`; a description of each mismatch.
fn check_block(root: &Path, block: &Block, scratch: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let mut last_status = 0;
    for step in steps(block) {
        let (output, status) = match run_line(root, &step.command, last_status, scratch) {
            Ok(ran) => ran,
            Err(why) => {
                failures.push(format!(
                    "{}:{}: `{}`: {why}",
                    block.page.display(),
                    block.line,
                    step.command
                ));
                break;
            }
        };
        last_status = status;
        let actual: Vec<&str> = output.lines().collect();
        let mut expected = step.expected.clone();
        while expected.last().is_some_and(|l| l.trim().is_empty()) {
            expected.pop();
        }
        if !matches(&expected, &actual) {
            failures.push(format!(
                "{}:{}: `{}` (exit {status}) printed:\n{output}\n--- the page shows:\n{}\n",
                block.page.display(),
                block.line,
                step.command,
                expected.join("\n")
            ));
        }
    }
    failures
}

#[test]
fn every_documented_command_prints_what_its_page_shows() {
    let root = capi_test_support::workspace_root().canonicalize().unwrap();
    let scratch = std::env::temp_dir().join(format!("capi-doc-commands-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut failures = Vec::new();
    let (mut ran, mut passed_over) = (0, Vec::new());
    for page in pages(&root) {
        let text = std::fs::read_to_string(&page).unwrap();
        for block in command_blocks(&page, &text) {
            match &block.not_run {
                Some(reason) => {
                    assert!(!reason.is_empty(), "{}: a reason", block.page.display());
                    passed_over.push(format!(
                        "{}:{} ({reason})",
                        block.page.display(),
                        block.line
                    ));
                }
                None => {
                    ran += 1;
                    failures.extend(check_block(&root, &block, &scratch));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!(
        "documented commands: {ran} blocks run; passed over: {}",
        passed_over.join(", ")
    );
    assert!(
        ran >= 20,
        "the pages' command blocks were not found ({ran})"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every `cargo install` a page shows installs the locked versions (issue 63: without
/// `--locked`, 183 packages were re-resolved and 12 built at untested versions).
#[test]
fn every_documented_install_is_locked() {
    let root = capi_test_support::workspace_root();
    for page in pages(&root) {
        let text = std::fs::read_to_string(&page).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.contains("cargo install ") {
                assert!(
                    line.contains("--locked"),
                    "{}:{}: `cargo install` without --locked: {line}",
                    page.display(),
                    i + 1
                );
            }
        }
    }
}

#[test]
fn the_runner_splits_and_matches_as_documented() {
    assert_eq!(
        tokens(r#"a 'b c' "d\"e" f\ g 2>&1 | h && i > j"#),
        vec![
            Token::Word("a".into()),
            Token::Word("b c".into()),
            Token::Word("d\"e".into()),
            Token::Word("f g".into()),
            Token::ErrToOut,
            Token::Pipe,
            Token::Word("h".into()),
            Token::And,
            Token::Word("i".into()),
            Token::Out,
            Token::Word("j".into()),
        ]
    );
    let expected: Vec<String> = ["first", "...", "last [..] here"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    assert!(matches(&expected, &["first", "x", "y", "last 3 s here"]));
    assert!(matches(&expected, &["first", "last  here"]));
    assert!(!matches(&expected, &["first", "last 3 s there"]));
    assert!(!matches(&expected, &["other", "last 3 s here"]));
    assert!(line_matches("a[..]b[..]c", "a1b2c"));
    assert!(!line_matches("a[..]b", "a1b2"));
}
