//! `xcc completions SHELL` and `xcc man DIR`: shell completions and man pages generated from the
//! command line's own definition, so they cannot drift from it. `scripts/install.sh` installs
//! both.

use crate::{Cli, InspectCli, RuntimeCli};
use clap::CommandFactory;
use std::path::Path;

/// The whole command line: compiling, and the subcommands beside it.
fn command() -> clap::Command {
    Cli::command()
        .version(crate::version())
        .args_conflicts_with_subcommands(true)
        .subcommand(InspectCli::command().name("inspect"))
        .subcommand(RuntimeCli::command().name("runtime"))
        .subcommand(
            clap::Command::new("completions")
                .about("Print a completion script for a shell")
                .arg(clap::Arg::new("shell").required(true).value_parser(clap::value_parser!(clap_complete::Shell))),
        )
        .subcommand(
            clap::Command::new("man")
                .about("Write the man pages (xcc.1 and one per subcommand) into a directory")
                .arg(clap::Arg::new("dir").required(true)),
        )
}

/// Prints the completion script for `shell` on standard output.
pub fn completions(shell: &str) -> Result<(), String> {
    let shell: clap_complete::Shell = shell
        .parse()
        .map_err(|_| format!("xcc: error: no completions for '{shell}' (bash, zsh, fish, elvish, powershell)"))?;
    clap_complete::generate(shell, &mut command(), "xcc", &mut std::io::stdout());
    Ok(())
}

/// Writes `xcc.1` and `xcc-SUBCOMMAND.1` into `dir`.
pub fn man_pages(dir: &Path) -> Result<(), String> {
    let error = |e: std::io::Error| format!("xcc: error: writing man pages into {}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(error)?;
    let command = command();
    let mut pages = vec![("xcc.1".to_string(), command.clone())];
    for sub in command.get_subcommands() {
        let name = format!("xcc-{}", sub.get_name());
        pages.push((format!("{name}.1"), sub.clone().name(name).version(crate::version())));
    }
    for (file, page) in pages {
        let mut text = Vec::new();
        clap_mangen::Man::new(page).render(&mut text).map_err(error)?;
        crate::pipeline::write_output(&dir.join(file), &text)?;
    }
    Ok(())
}
