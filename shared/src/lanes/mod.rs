//! One handler per lane; the binaries only build their clients and call these.

pub mod fast;
pub mod not_implemented;
