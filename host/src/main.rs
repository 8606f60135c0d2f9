//! The `host` command-line program; everything is in the library's `cli` module (the
//! default `cli` feature), so that the program and the library's tests share it.
fn main() -> std::process::ExitCode {
    host::cli::main()
}
