//! The panels and where they go on screen: a leaf module (ratatui's layout only), so the view's
//! state ([`crate::app`], which moves the focus by where panels are) and the drawing
//! ([`crate::ui`]) both use it without depending on each other.

use ratatui::layout::{Constraint, Layout, Rect};

/// The panels, in focus order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Panel {
    /// The distinct count (HyperLogLog).
    Distinct,
    /// Heavy hitters (count-min and top-k).
    Heavy,
    /// The dedupe / anti-spam Bloom filter.
    Dedupe,
    /// The 64-bit micro filter.
    Micro,
    /// The HyperLogLog's register histogram.
    Registers,
    /// Device mode: the fleet.
    Devices,
    /// Ingest throughput.
    Throughput,
    /// `--value-field N`: a numeric field's quantiles.
    Quantiles,
}

impl Panel {
    /// Every panel, in focus order.
    pub const ALL: [Self; 8] = [
        Self::Distinct,
        Self::Devices,
        Self::Heavy,
        Self::Dedupe,
        Self::Quantiles,
        Self::Micro,
        Self::Registers,
        Self::Throughput,
    ];

    /// The panel's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Distinct => "Distinct",
            Self::Heavy => "Heavy hitters",
            Self::Dedupe => "Dedupe",
            Self::Micro => "Micro filter",
            Self::Registers => "HLL registers",
            Self::Devices => "Devices",
            Self::Throughput => "Ingest",
            Self::Quantiles => "Quantiles",
        }
    }
}

/// Where each panel goes, for a body area.
///
/// With `zoom`, or when the area is too small for a grid (under 60×14), only `focus` is placed.
/// Otherwise two columns (three from 120 columns), each a stack; the last panel of a column takes
/// the remaining rows. Below 34 rows the quantiles panel and the micro filter share one place: the
/// micro filter is shown while it has the focus (Tab reaches it), the quantiles otherwise. A column
/// still too short for its panels lets the least needed step aside (micro filter, registers,
/// quantiles, Ingest, Dedupe, Distinct), but never the focused one.
#[must_use]
pub fn layout(body: Rect, panels: &[Panel], focus: Panel, zoom: bool) -> Vec<(Panel, Rect)> {
    if body.is_empty() || panels.is_empty() {
        return Vec::new();
    }
    let focus = if panels.contains(&focus) {
        focus
    } else {
        panels[0]
    };
    if zoom || body.width < 60 || body.height < 14 {
        return vec![(focus, body)];
    }
    use Panel::{Dedupe, Devices, Distinct, Heavy, Micro, Quantiles, Registers, Throughput};
    // Two columns; the right one is wider from 120 columns on, for the heavy hitters' lines.
    // Heights are for a 22-row body (80×24) and grow with the terminal.
    let tall = body.height >= 34;
    let plan: Vec<Vec<(Panel, u16)>> = vec![
        vec![
            (Distinct, if tall { 9 } else { 8 }),
            (Devices, 10),
            (Dedupe, if tall { 16 } else { 8 }),
            (Quantiles, if tall { 10 } else { 8 }),
            (Micro, 6),
        ],
        vec![
            (Heavy, if tall { 16 } else { 9 }),
            (Registers, if tall { 12 } else { 6 }),
            (Throughput, if tall { 8 } else { 7 }),
        ],
    ];
    // Too short for both: the one not focused of the quantiles and the micro filter steps aside.
    let aside = (!tall && panels.contains(&Quantiles) && panels.contains(&Micro))
        .then_some(if focus == Micro { Quantiles } else { Micro });
    let columns: Vec<Vec<(Panel, u16)>> = plan
        .into_iter()
        .map(|col| {
            let col: Vec<(Panel, u16)> = col
                .into_iter()
                .filter(|(p, _)| panels.contains(p) && Some(*p) != aside)
                .collect();
            fit_column(col, body.height, focus)
        })
        .filter(|col| !col.is_empty())
        .collect();
    let devices = panels.contains(&Devices);
    let widths = if columns.len() == 2 && body.width >= 120 {
        // The wider column holds the widest table: devices on the left, heavy hitters on the right.
        if devices {
            vec![Constraint::Percentage(58), Constraint::Percentage(42)]
        } else {
            vec![Constraint::Percentage(42), Constraint::Percentage(58)]
        }
    } else {
        vec![Constraint::Fill(1); columns.len()]
    };
    let col_areas = Layout::horizontal(widths).split(body);
    let mut out = Vec::new();
    for (col, area) in columns.iter().zip(col_areas.iter()) {
        let flex = flex_of(col);
        let constraints: Vec<Constraint> = col
            .iter()
            .enumerate()
            .map(|(i, (_, h))| {
                if i == flex {
                    Constraint::Fill(1)
                } else {
                    Constraint::Length(*h)
                }
            })
            .collect();
        let rows = Layout::vertical(constraints).split(*area);
        out.extend(col.iter().zip(rows.iter()).map(|((p, _), r)| (*p, *r)));
    }
    out
}

/// Rows the panel that takes what is left of its column needs at least: its borders, a line of
/// figures, a table's header and two rows (at 60×16 the heavy hitters got their title alone).
pub const FLEX_MIN: u16 = 6;

/// The panels of a grid that step aside first when a column is too short for all of them at
/// their heights, the least needed first. The focused one never does (Tab brings each back, in
/// the place of another), nor the one that takes what is left.
const ASIDE_ORDER: [Panel; 6] = [
    Panel::Micro,
    Panel::Registers,
    Panel::Quantiles,
    Panel::Throughput,
    Panel::Dedupe,
    Panel::Distinct,
];

/// Which panel of a column takes the rows the others leave: Dedupe on the left, Heavy on the
/// right (Devices in device mode), else the last one.
fn flex_of(col: &[(Panel, u16)]) -> usize {
    col.iter()
        .position(|(p, _)| matches!(p, Panel::Dedupe | Panel::Devices | Panel::Heavy))
        .unwrap_or(col.len().saturating_sub(1))
}

/// The panels of a column that fit `height` rows: each at its height and the flexible one at
/// [`FLEX_MIN`] at least, the others stepping aside in [`ASIDE_ORDER`] until they do.
fn fit_column(mut col: Vec<(Panel, u16)>, height: u16, focus: Panel) -> Vec<(Panel, u16)> {
    for candidate in ASIDE_ORDER {
        let flex = flex_of(&col);
        let need: u16 = col
            .iter()
            .enumerate()
            .map(|(i, (_, h))| if i == flex { FLEX_MIN } else { *h })
            .sum();
        if need <= height {
            break;
        }
        let flex_panel = col.get(flex).map(|(p, _)| *p);
        if candidate != focus && Some(candidate) != flex_panel {
            col.retain(|(p, _)| *p != candidate);
        }
    }
    col
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From 60×14 of body (a 60×16 terminal) up, every panel placed has its rows: the flexible
    /// one of its column [`FLEX_MIN`] at least, the others their planned height (at 60×16 the
    /// heavy hitters were their title alone and Dedupe was not drawn, at 100×20 the heavy
    /// hitters had one row); the focused panel is always placed, whichever it is.
    #[test]
    fn every_panel_placed_has_its_rows_and_the_focus_is_placed() {
        use Panel::{Dedupe, Devices, Distinct, Heavy, Micro, Quantiles, Registers, Throughput};
        // The sets the view shows: lines (with `--value-field`'s quantiles or not), devices.
        let lines = [Distinct, Heavy, Dedupe, Micro, Registers, Throughput];
        let with_quantiles = [
            Distinct, Heavy, Dedupe, Quantiles, Micro, Registers, Throughput,
        ];
        let devices = [Distinct, Devices, Heavy, Registers, Throughput];
        let devices_quantiles = [Distinct, Devices, Heavy, Quantiles, Registers, Throughput];
        let sets: [&[Panel]; 4] = [&lines, &with_quantiles, &devices, &devices_quantiles];
        for panels in sets {
            for (w, h) in [
                (60, 14),
                (70, 16),
                (100, 18),
                (80, 22),
                (120, 38),
                (200, 60),
            ] {
                for &focus in panels {
                    let placed = layout(Rect::new(0, 0, w, h), panels, focus, false);
                    let what = format!("{w}×{h} focus {focus:?}: {placed:?}");
                    assert!(placed.iter().any(|(p, _)| *p == focus), "{what}");
                    for (p, r) in &placed {
                        let min = if matches!(p, Panel::Heavy | Panel::Dedupe | Panel::Devices) {
                            FLEX_MIN
                        } else {
                            5
                        };
                        assert!(r.height >= min, "{p:?} {r:?} in {what}");
                        assert!(r.right() <= w && r.bottom() <= h, "{what}");
                    }
                }
            }
        }
        // Tall enough, nothing steps aside but what the plan says: at 120×40 every panel, at
        // 80×24 all but one of the quantiles and the micro filter, which share a place.
        for panels in sets {
            let all = layout(Rect::new(0, 0, 120, 38), panels, Distinct, false);
            assert_eq!(all.len(), panels.len(), "{all:?}");
            let at_80x24 = layout(Rect::new(0, 0, 80, 22), panels, Distinct, false);
            let shared = usize::from(panels.contains(&Quantiles) && panels.contains(&Micro));
            assert_eq!(at_80x24.len(), panels.len() - shared, "{at_80x24:?}");
        }
    }
}
