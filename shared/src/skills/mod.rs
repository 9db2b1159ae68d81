//! Skills: the deterministic functions every lane shares, free of HTTP and storage concerns.

pub mod copilot;
