//! The `confvet` binary: parse flags, call the library, map the outcome to
//! an exit code (0 clean, 1 findings at or above --fail-on, 2 usage or I/O).

#[macro_use]
mod commands;

use commands::inspect::{run_schema, run_values};
use commands::lint::run_lint;
use commands::shared::{LIMITS, WORKER_STACK_BYTES, print_stdout};

use clap::{CommandFactory, FromArgMatches};
use confvet::cli::{Cli, Command};
use confvet::rules::Documented;
use std::path::PathBuf;
use std::process::ExitCode;

/// Memory is counted per thread, so that a unit past its limit is stopped
/// before an allocation that would abort the process.
#[global_allocator]
static ALLOCATOR: confvet::watchdog::CountingAllocator = confvet::watchdog::CountingAllocator;

fn main() -> ExitCode {
    confvet::allocator::keep_freed_pages();
    // glibc gives each thread a malloc arena of 64 MiB of address space:
    // under an address-space limit (`ulimit -v`, as CI runners and the
    // hostile tests set) those reservations, not the data, would fail a
    // large input first.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        // Only blocks of 64 KiB and more come here (`allocator`): each is
        // mapped on its own and returned when freed. By default glibc
        // raises this threshold to the largest block freed so far, and a
        // file text of a few MiB then stays in the arenas after its unit.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 * 1024);
    }
    // The whole run on a thread with the workers' stack: a unit may be
    // checked on the calling thread too.
    let run = std::thread::Builder::new()
        .name("confvet".into())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(run_main);
    match run.map(|thread| thread.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => ExitCode::from(101),
        Err(err) => {
            say!("confvet: cannot start: {err}");
            ExitCode::from(2)
        }
    }
}

fn run_main() -> ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(2);
        }
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let _ = LIMITS.set(cli.limits.limits());
    let code = match cli.command {
        Command::Lint(args) => {
            let sub = matches.subcommand_matches("lint").expect("lint matches");
            run_lint(*args, sub, &cwd)
        }
        Command::Values(args) => run_values(args, &cwd),
        Command::Render(args) => commands::render::run(args, &cwd),
        Command::Schema(args) => run_schema(args, &cwd),
        Command::Rules => {
            let mut table = String::new();
            for rule in confvet::rules::RULES {
                let fix = rule.fix.map_or("", |fix| fix.as_str());
                table.push_str(&format!(
                    "{:<32} {:<8} {:<7} {}\n",
                    rule.id,
                    rule.severity.as_str(),
                    fix,
                    rule.summary()
                ));
            }
            print_stdout(&table)
        }
        Command::Explain { rule } => match confvet::rules::find(&rule) {
            Some(rule) => print_stdout(rule.page()),
            None => {
                let hint = confvet::rules::Selector::parse(&rule)
                    .err()
                    .map(|unknown| unknown.to_string())
                    .unwrap_or_else(|| {
                        format!("{rule:?} is a system; `confvet rules` lists its rules")
                    });
                commands::shared::fail(confvet::error::Error::Usage(hint))
            }
        },
        Command::Server => match confvet::server::run_stdio() {
            Ok(ending) => ending.status(),
            Err(error) => {
                say!("confvet: the language server stopped: {error}");
                2
            }
        },
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "confvet", &mut script);
            print_stdout(&String::from_utf8_lossy(&script))
        }
    };
    ExitCode::from(code)
}
