//! `tui-demo`: a live terminal feed of `sketch-nostd` sketches over a log, stdin, or a fleet of devices.
//!
//! Data flows one way: [`source`] (synthetic log, lines from a file or stdin, device frames) →
//! [`ingest`] (its own thread: applies events to the sketches, publishes [`snapshot`]s) → [`app`]
//! (state and key handling) → [`ui`] (one file per panel, drawing from a snapshot only). Only
//! control (pause, reset, rate) flows back. [`report`] is the headless path: the same engine, a
//! summary table or JSON at the end.
#![forbid(unsafe_code)]

pub mod app;
pub mod args;
pub mod clock;
pub mod device;
pub mod emit;
pub mod exact;
pub mod human;
pub mod ingest;
pub mod layout;
pub mod redis_sink;
pub mod report;
pub mod saved;
pub mod saved_fleet;
pub mod seed;
pub mod snapshot;
pub mod source;
pub mod theme;
pub mod ui;
pub mod window;
