//! One module per `koshogi` subcommand.

pub mod info;
