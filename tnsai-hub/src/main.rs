//! The `tnsai` binary; see `tnsai --help` and the `tnsai_hub` crate docs.

fn main() -> std::process::ExitCode {
    tnsai_hub::cli::main()
}
