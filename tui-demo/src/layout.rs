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
/// micro filter is shown while it has the focus (Tab reaches it), the quantiles otherwise.
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
            col.into_iter()
                .filter(|(p, _)| panels.contains(p) && Some(*p) != aside)
                .collect::<Vec<_>>()
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
        // Each panel gets its height; one takes what is left (Dedupe on the left, Heavy on the
        // right, else the last one).
        let flex = col
            .iter()
            .position(|(p, _)| matches!(p, Dedupe | Devices | Heavy))
            .unwrap_or(col.len() - 1);
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
