//! The device protocol's sketch types: what a simulated device counts with and sends (`emit`), and
//! what the host decodes and merges (`ingest::fleet`). A leaf module, so the two sides share it
//! without depending on each other.

use sketch_nostd::sizing::{
    cm_depth, cm_width, k_for, quantile_buckets, quantile_sub_buckets, words_for,
};
use sketch_nostd::{Bloom, CountMin, Hll14, QuantileSketch, SpaceSaving};

/// The seed every device's sketches use (sketches merge only with equal seeds).
pub const DEVICE_SEED: u64 = 0xdead_beef_0000_0001;

/// Lines a device's dedupe filter is sized for.
pub const DEVICE_SEEN_CAPACITY: u64 = 10_000;
/// A device's dedupe filter: 10,000 lines at 1% (11.7 KiB), cleared when its estimate passes 1%.
pub type DeviceSeen =
    Bloom<{ words_for(DEVICE_SEEN_CAPACITY, 0.01) }, { k_for(DEVICE_SEEN_CAPACITY, 0.01) }>;

/// A device's frequency sketch: count-min with ε = 1%, δ = 1% (5 rows × 272 `u32`, 5.3 KiB).
pub type DeviceFreq = CountMin<{ cm_width(0.01) }, { cm_depth(0.01) }, u32>;

/// A device's distinct counter as it travels: a Redis-compatible HyperLogLog
/// ([`sketch_nostd::RedisHll`], sent as its [`Hll14`] with seed [`DEVICE_HLL_SEED`]): 2^14 registers
/// (12 KiB, 0.81% standard error) hashed as Redis's `PFADD` hashes, so the host can hand the devices'
/// and the fleet's registers to Redis (`--redis`) for `PFCOUNT` and `PFMERGE` across hosts.
// REDIS HOOK: was Hll12 with DEVICE_SEED; Redis keeps exactly 2^14 registers.
pub type DeviceDistinct = Hll14;

/// The seed of the devices' distinct counters: Redis's MurmurHash64A seed (see
/// [`sketch_nostd::redis`]). The other sketches keep [`DEVICE_SEED`].
pub const DEVICE_HLL_SEED: u64 = sketch_nostd::redis::REDIS_SEED;

/// Bytes of a line a device's heavy-hitter summary can hold: the synthetic log's lines are at most
/// 154 bytes (with the latency field; the longest of 300 MB of log, seed 1). A longer line is still counted by the device's other sketches; the summary skips it
/// and counts it as overlong.
pub const DEVICE_LINE_MAX: usize = 160;
/// Counters of a device's heavy-hitter summary. Whole log lines are mostly unique (about 85% of
/// the synthetic log's), which is hard on Space-Saving: with 4 devices the merged top 10 held 2–5
/// of the true top 10 with 64 counters, 5–8 with 128, and 9–10 with 256 (the misses near-ties
/// with the 11th), over 3,000 to 300,000 lines per device.
pub const DEVICE_TOP_K: usize = 256;
/// A line as a device's heavy-hitter summary stores it: up to [`DEVICE_LINE_MAX`] bytes, owned, no
/// heap (a one-byte length).
pub type DeviceLine = sketch_nostd::heapless::Vec<u8, DEVICE_LINE_MAX, u8>;
/// A device's heavy hitters: Space-Saving with 256 counters (46 KiB: the lines' text is most of it;
/// a microcontroller would count a field such as the path, in far smaller slots). No sketch beside
/// it (the device's count-min sketch answers "how often" for any line); the top lines arrive early
/// and keep nearly exact counts.
pub type DeviceTop = SpaceSaving<DeviceLine, DEVICE_TOP_K>;

/// A device's quantile sketch of a numeric field (`emit --value-field N`): α = 1% over 1 … 10^9
/// (35 buckets per power of two, 1,047 `u32` counters, 4,256 bytes), the size firmware would pick
/// for latencies in µs; the host merges the devices' sketches.
pub type DeviceValues =
    QuantileSketch<{ quantile_sub_buckets(0.01) }, { quantile_buckets(0.01, 1.0, 1e9) }>;
