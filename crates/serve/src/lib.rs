//! koshogi-serve: the web viewer of a run directory (`koshogi serve --run DIR`).
//!
//! A local page, served by a small HTTP server (hyper; synchronous handlers on a few threads)
//! with its assets compiled into the binary (nothing is downloaded), to look at what a run is
//! doing: browse its game records move by move, see what a checkpoint's network thinks of a
//! position (top moves drawn on the board, win/draw/loss), play a game against a checkpoint by
//! clicking, and glance at the loss and Elo curves. docs/viewer.md describes the pages and the JSON API.
//!
//! * [`server`]: the HTTP transport — binding, request threads, size limits and deadlines,
//!   conversion to and from the types of [`api`].
//! * [`request`]: the transport-free request/response types (so every handler is tested without
//!   sockets); [`app`]: [`App`], the shared state, and [`AppConfig`]; [`api`]: the route table
//!   (it re-exports those types); errors become JSON.
//! * [`play_sessions`]: the games played from the page, by id.
//! * [`run_dir`]: the run's files: game records and checkpoints, names checked against escapes.
//! * [`board_view`]: a position and its moves as JSON for the page (SVG, legs, shots).
//! * [`api_games`], [`api_network`], [`api_play`], [`api_training`]: the pages' data.
//! * [`network_worker`]: the one thread that owns the loaded networks and engines (tch models
//!   are `Send` but not `Sync`).
//! * [`assets`]: the embedded HTML, JavaScript and CSS.

pub mod api;
pub mod api_games;
pub mod api_network;
pub mod api_play;
pub mod api_training;
pub mod app;
pub mod assets;
pub mod board_view;
pub mod error;
pub mod network_worker;
pub mod play_sessions;
pub mod request;
pub mod run_dir;
pub mod server;

pub use api::{ApiRequest, ApiResponse, App, AppConfig};
pub use error::{ApiError, ServeError};
pub use server::{RunningServer, DEFAULT_PORT};
