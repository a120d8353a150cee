//! Transport protocols: TCP now; TFRC and Quick-Start join here.

pub mod tcp;
