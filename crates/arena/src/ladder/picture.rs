//! The ladder's picture of progress, `<run>/arena/elo.svg`: each checkpoint's Elo (with its
//! ±1.96 standard-error bar) against training hours and against optimiser steps, side by side,
//! with the fixed baselines (`random`, `greedy`, `ab:2`, `classic@…`) drawn as horizontal lines
//! labelled with their names and Elo.
//!
//! Why a file and not only the viewer's chart: a picture that travels with the run (a store's
//! `arena/` is pushed whole, a README can link it) says at a glance how strong the checkpoints
//! became, and when, against opponents that are the same in every run.
//!
//! Drawn with `plotters`' SVG backend (no fonts are read: the SVG names a `sans-serif` family
//! and the viewer's browser lays the text out). Input is the ladder table (`ladder.csv` rows)
//! plus each checkpoint's training hours ([`super::training_hours`]); a checkpoint without an
//! hour (the synthesised random-initialised anchor) appears only on the steps panel.

use std::collections::HashMap;
use std::path::Path;

use koshogi_files::atomic::write_atomic;
use koshogi_run_store::ladder_csv::LadderRow;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width and height of the picture, pixels.
pub const PICTURE_SIZE: (u32, u32) = (1200, 520);
/// The checkpoints' curve.
const CURVE_COLOR: RGBColor = RGBColor(0x1f, 0x5f, 0xbf);
/// [`CURVE_COLOR`] as the SVG writes it (`stroke="#1F5FBF"`): how a reader finds the curve.
pub const CURVE_STROKE: &str = "#1F5FBF";
/// Half-width of the interval drawn around each Elo, in standard errors (95 %).
const INTERVAL_Z: f64 = 1.96;
/// The baselines' lines, in turn.
const ANCHOR_COLORS: [RGBColor; 6] = [
    RGBColor(0xc0, 0x39, 0x2b),
    RGBColor(0x27, 0xae, 0x60),
    RGBColor(0x8e, 0x44, 0xad),
    RGBColor(0xd3, 0x54, 0x00),
    RGBColor(0x16, 0xa0, 0x85),
    RGBColor(0x7f, 0x8c, 0x8d),
];

/// Drawing or writing the picture failed.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    #[error("drawing the ladder picture: {0}")]
    Draw(String),
    #[error("writing {path}")]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

/// What the picture shows.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressPicture {
    /// Shown in the title (e.g. the run directory's name).
    pub run_name: String,
    /// The player at Elo 0.
    pub anchor: String,
    /// The ladder table: rows with a step are checkpoints, rows without one baselines.
    pub rows: Vec<LadderRow>,
    /// Training hours of checkpoints, by name (see [`super::training_hours`]).
    pub hours: HashMap<String, f64>,
    /// How the hours were measured, for the hours axis (e.g. "hours since step-000000000 was
    /// saved (wall clock)").
    pub hours_label: String,
}

struct Point {
    x: f64,
    elo: f64,
    stderr: f64,
}

/// The picture as SVG text.
pub fn progress_svg(picture: &ProgressPicture) -> Result<String, PictureError> {
    let mut checkpoints: Vec<&LadderRow> =
        picture.rows.iter().filter(|r| r.step.is_some()).collect();
    checkpoints.sort_by_key(|r| r.step);
    let anchors: Vec<&LadderRow> = picture.rows.iter().filter(|r| r.step.is_none()).collect();
    let by_step: Vec<Point> = checkpoints
        .iter()
        .map(|r| Point {
            x: r.step.unwrap_or(0) as f64,
            elo: r.elo,
            stderr: r.stderr,
        })
        .collect();
    let by_hours: Vec<Point> = checkpoints
        .iter()
        .filter_map(|r| {
            let hours = *picture.hours.get(&r.name)?;
            hours.is_finite().then_some(Point {
                x: hours,
                elo: r.elo,
                stderr: r.stderr,
            })
        })
        .collect();
    let elo_range = elo_range(&by_step, &anchors);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, PICTURE_SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let title = format!(
            "{} — ladder Elo (anchor {} = 0; bars ±{INTERVAL_Z} s.e.)",
            picture.run_name, picture.anchor
        );
        let root = root
            .titled(&title, ("sans-serif", 20))
            .map_err(draw_error)?;
        let (left, right) = root.split_horizontally(PICTURE_SIZE.0 / 2);
        draw_panel(
            &left,
            "Elo against training time",
            &picture.hours_label,
            &by_hours,
            &anchors,
            elo_range.clone(),
            false,
        )?;
        draw_panel(
            &right,
            "Elo against training steps",
            "optimiser steps",
            &by_step,
            &anchors,
            elo_range,
            true,
        )?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// Writes [`progress_svg`] to `path` atomically.
pub fn write_progress_svg(path: &Path, picture: &ProgressPicture) -> Result<(), PictureError> {
    let svg = progress_svg(picture)?;
    write_atomic(path, svg.as_bytes()).map_err(|source| PictureError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn draw_error(error: impl std::fmt::Display) -> PictureError {
    PictureError::Draw(error.to_string())
}

/// Every interval and baseline, with a margin; at least 100 Elo tall.
fn elo_range(points: &[Point], anchors: &[&LadderRow]) -> std::ops::Range<f64> {
    let values = points
        .iter()
        .flat_map(|p| {
            let half = INTERVAL_Z * p.stderr.max(0.0);
            [p.elo - half, p.elo + half]
        })
        .chain(anchors.iter().map(|a| a.elo))
        .filter(|v| v.is_finite());
    let (mut low, mut high) = values.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if high - low < 100.0 {
        let middle = (high + low) / 2.0;
        low = middle - 50.0;
        high = middle + 50.0;
    }
    let margin = (high - low) * 0.06;
    (low - margin)..(high + margin)
}

fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    caption: &str,
    x_label: &str,
    points: &[Point],
    anchors: &[&LadderRow],
    elo_range: std::ops::Range<f64>,
    whole_x: bool,
) -> Result<(), PictureError> {
    // From 0 (or below, for a checkpoint saved before step 0 by a clock set back).
    let x_min = points.iter().map(|p| p.x).fold(0.0f64, f64::min);
    let x_max = points.iter().map(|p| p.x).fold(0.0f64, f64::max);
    let x_max = if x_max > x_min {
        x_max + (x_max - x_min) * 0.04
    } else {
        x_min + 1.0
    };
    let decimals = if whole_x {
        0
    } else {
        label_decimals(x_max - x_min)
    };
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .caption(caption, ("sans-serif", 16))
        .x_label_area_size(42)
        .y_label_area_size(56)
        .build_cartesian_2d(x_min..x_max, elo_range)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc("Elo")
        .x_label_formatter(&|x| format!("{:.*}", decimals, x))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .draw()
        .map_err(draw_error)?;

    for (index, anchor) in anchors.iter().enumerate() {
        let color = ANCHOR_COLORS[index % ANCHOR_COLORS.len()];
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x_min, anchor.elo), (x_max, anchor.elo)],
                color.stroke_width(1),
            )))
            .map_err(draw_error)?;
        let style = TextStyle::from(("sans-serif", 13).into_font())
            .color(&color)
            .pos(Pos::new(HPos::Right, VPos::Bottom));
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{} ({:+.0})", anchor.name, anchor.elo),
                (x_max, anchor.elo),
                style,
            )))
            .map_err(draw_error)?;
    }

    if points.is_empty() {
        let style = TextStyle::from(("sans-serif", 14).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        let (low, high) = (chart.y_range().start, chart.y_range().end);
        chart
            .draw_series(std::iter::once(Text::new(
                "no checkpoint has this measure".to_string(),
                ((x_min + x_max) / 2.0, (low + high) / 2.0),
                style,
            )))
            .map_err(draw_error)?;
        return Ok(());
    }
    chart
        .draw_series(points.iter().map(|p| {
            let half = INTERVAL_Z * p.stderr.max(0.0);
            ErrorBar::new_vertical(
                p.x,
                p.elo - half,
                p.elo,
                p.elo + half,
                CURVE_COLOR.mix(0.5).stroke_width(1),
                6,
            )
        }))
        .map_err(draw_error)?;
    chart
        .draw_series(LineSeries::new(
            points.iter().map(|p| (p.x, p.elo)),
            CURVE_COLOR.stroke_width(2),
        ))
        .map_err(draw_error)?;
    chart
        .draw_series(
            points
                .iter()
                .map(|p| Circle::new((p.x, p.elo), 3, CURVE_COLOR.filled())),
        )
        .map_err(draw_error)?;
    Ok(())
}

/// Decimals that tell apart the ~10 labels plotters puts on an axis `span` wide (a run of
/// minutes has its hours in hundredths).
fn label_decimals(span: f64) -> usize {
    let step = span / 10.0;
    if !(step.is_finite() && step > 0.0) || step >= 1.0 {
        return 0;
    }
    (-step.log10()).ceil().clamp(0.0, 4.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, step: Option<u64>, elo: f64, stderr: f64) -> LadderRow {
        LadderRow {
            name: name.into(),
            step,
            elo,
            stderr,
            games: 40,
            points: 20.0,
        }
    }

    /// The `points` of every `<polyline>` of the checkpoints' curve, as lists of (x, y).
    fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
        let stroke = format!("stroke=\"{CURVE_STROKE}\"");
        svg.split("<polyline")
            .skip(1)
            .map(|tag| &tag[..tag.find("/>").expect("a closed tag")])
            .filter(|tag| tag.contains(&stroke))
            .map(|tag| {
                let start = tag.find("points=\"").expect("points") + 8;
                let end = start + tag[start..].find('"').expect("end of points");
                tag[start..end]
                    .split_whitespace()
                    .map(|pair| {
                        let (x, y) = pair.split_once(',').expect("x,y");
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }

    fn picture() -> ProgressPicture {
        ProgressPicture {
            run_name: "run-<1>".into(),
            anchor: "step-000000000".into(),
            rows: vec![
                row("step-000000000", Some(0), 0.0, 0.0),
                row("step-000001000", Some(1000), 120.0, 40.0),
                row("step-000002000", Some(2000), 260.0, 45.0),
                row("step-000004000", Some(4000), 410.0, 50.0),
                row("random", None, -35.0, 30.0),
                row("greedy", None, 300.0, 35.0),
                row("classic@movetime=1000", None, 900.0, 80.0),
            ],
            hours: [
                ("step-000000000", 0.0),
                ("step-000001000", 0.25),
                ("step-000002000", 0.5),
                ("step-000004000", 1.0),
            ]
            .into_iter()
            .map(|(n, h)| (n.to_string(), h))
            .collect(),
            hours_label: "hours since step-000000000 was saved".into(),
        }
    }

    #[test]
    fn the_curve_is_found_by_its_stroke() {
        let hex = format!(
            "#{:02X}{:02X}{:02X}",
            CURVE_COLOR.0, CURVE_COLOR.1, CURVE_COLOR.2
        );
        assert_eq!(hex, CURVE_STROKE);
    }

    #[test]
    fn both_panels_draw_every_checkpoint_and_name_every_baseline() {
        let svg = progress_svg(&picture()).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..60]);
        assert!(svg.trim_end().ends_with("</svg>"));
        let curves = polylines(&svg);
        assert_eq!(curves.len(), 2, "one curve a panel");
        for curve in &curves {
            assert_eq!(curve.len(), 4);
            // Left to right by x, and higher Elo is higher up (smaller SVG y).
            assert!(curve.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 > w[1].1));
        }
        // The hours panel is the left half, the steps panel the right.
        assert!(curves[0].iter().all(|p| p.0 < 600.0));
        assert!(curves[1].iter().all(|p| p.0 > 600.0));
        for label in [
            "random (-35)",
            "greedy (+300)",
            "classic@movetime=1000 (+900)",
        ] {
            assert_eq!(svg.matches(label).count(), 2, "{label} once a panel");
        }
        // Names are escaped, and the error bars are drawn (3 lines each: whisker, two caps).
        assert!(svg.contains("run-&lt;1&gt;"));
        assert!(!svg.contains("run-<1>"));
        assert!(svg.contains("hours since step-000000000 was saved"));
        assert!(svg.contains("optimiser steps"));
    }

    #[test]
    fn a_checkpoint_without_hours_is_only_on_the_steps_panel() {
        let mut picture = picture();
        picture.hours.remove("step-000000000");
        let svg = progress_svg(&picture).unwrap();
        let lengths: Vec<usize> = polylines(&svg).iter().map(Vec::len).collect();
        assert_eq!(lengths, [3, 4]);

        picture.hours.clear();
        let svg = progress_svg(&picture).unwrap();
        let lengths: Vec<usize> = polylines(&svg).iter().map(Vec::len).collect();
        assert_eq!(lengths, [4]);
        assert!(svg.contains("no checkpoint has this measure"));
    }

    #[test]
    fn short_runs_get_hours_with_enough_decimals() {
        assert_eq!(label_decimals(40.0), 0);
        assert_eq!(label_decimals(4.0), 1);
        assert_eq!(label_decimals(0.04), 3);
        assert_eq!(label_decimals(0.0), 0);
        let mut picture = picture();
        for (name, hours) in [
            ("step-000001000", 0.01),
            ("step-000002000", 0.02),
            ("step-000004000", 0.04),
        ] {
            picture.hours.insert(name.into(), hours);
        }
        let svg = progress_svg(&picture).unwrap();
        let labels: Vec<&str> = svg
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next().map(str::trim))
            .filter(|t| t.starts_with("0.0"))
            .collect();
        assert!(labels.contains(&"0.010"), "{labels:?}");
    }

    #[test]
    fn a_checkpoint_saved_before_step_0_stays_on_the_chart() {
        let mut picture = picture();
        picture.hours.insert("step-000001000".into(), -0.5);
        let svg = progress_svg(&picture).unwrap();
        let curves = polylines(&svg);
        let hours_panel = &curves[0];
        assert_eq!(hours_panel.len(), 4);
        assert!(
            hours_panel.iter().all(|p| p.0 > 0.0 && p.0 < 600.0),
            "{hours_panel:?}"
        );
    }

    #[test]
    fn a_single_checkpoint_and_no_baseline_still_make_a_picture() {
        let picture = ProgressPicture {
            rows: vec![row("step-000000000", Some(0), 0.0, 0.0)],
            ..picture()
        };
        let svg = progress_svg(&picture).unwrap();
        let lengths: Vec<usize> = polylines(&svg).iter().map(Vec::len).collect();
        assert_eq!(lengths, [1, 1]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("elo.svg");
        write_progress_svg(&path, &picture).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), svg);
        // A parent that is a file cannot hold it.
        let under_a_file = path.join("elo.svg");
        assert!(matches!(
            write_progress_svg(&under_a_file, &picture),
            Err(PictureError::Write { .. })
        ));
    }
}
