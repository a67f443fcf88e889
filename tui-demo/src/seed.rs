//! The seed every host-side sketch hashes lines with: a leaf module, so the sources (which hash
//! lines as they read them) and ingest (whose sketches take those hashes) both depend on it, not
//! on each other.

/// The seed every host-side sketch hashes lines with.
pub const SEED: u64 = 0x5eed_0f5c_a1ab_1e00;
