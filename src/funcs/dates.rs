//! Sprig's date family (`now`, `date`, `dateInZone`, `dateModify`, `toDate`,
//! `unixEpoch`, `duration`, `durationRound`, `ago`, `htmlDate`, ... and their
//! snake-case and `must` aliases) together with the parts of Go's `time` package they
//! expose: layout-based formatting and parsing against the reference time
//! `Mon Jan 2 15:04:05 MST 2006`, `time.Duration` printing and parsing, and
//! `time.Time` values that print, serialise and answer methods (`.Year`, `.Format`,
//! `.Unix`, ...) the way Go's do.
//!
//! Two deliberate, documented choices keep renders reproducible:
//! - The clock is the host's fixed instant ([`Host::now_unix`]); `now` carries a
//!   constant monotonic reading so it prints with Go's ` m=+…` suffix.
//! - Go's `time.Local` is taken to be UTC (what Helm shows on a UTC machine, and the
//!   only choice that does not depend on the machine rendering). It keeps the name
//!   `Local`, as `.Location` shows in Go. Named zones come from the IANA database
//!   compiled into `chrono-tz`.

use std::sync::Arc;

use chrono::{Offset, TimeZone};

use crate::template::{
    CallCtx, FuncDef, FuncError, FuncResult, Host, IntType, Kind, Object, Ty, Value,
};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::ctx("now", &[], None, now).nondeterministic(),
    FuncDef::ctx("date", &[Ty::String, Ty::Any], None, date).nondeterministic(),
    FuncDef::ctx(
        "dateInZone",
        &[Ty::String, Ty::Any, Ty::String],
        None,
        date_in_zone,
    )
    .nondeterministic(),
    FuncDef::ctx(
        "date_in_zone",
        &[Ty::String, Ty::Any, Ty::String],
        None,
        date_in_zone,
    )
    .nondeterministic(),
    FuncDef::ctx("htmlDate", &[Ty::Any], None, html_date).nondeterministic(),
    FuncDef::ctx(
        "htmlDateInZone",
        &[Ty::Any, Ty::String],
        None,
        html_date_in_zone,
    )
    .nondeterministic(),
    FuncDef::plain("dateModify", &[Ty::String, Ty::Time], date_modify),
    FuncDef::plain("date_modify", &[Ty::String, Ty::Time], date_modify),
    FuncDef::plain("mustDateModify", &[Ty::String, Ty::Time], must_date_modify),
    FuncDef::plain(
        "must_date_modify",
        &[Ty::String, Ty::Time],
        must_date_modify,
    ),
    FuncDef::plain("toDate", &[Ty::String, Ty::String], to_date),
    FuncDef::plain("mustToDate", &[Ty::String, Ty::String], must_to_date),
    FuncDef::plain("unixEpoch", &[Ty::Time], unix_epoch),
    FuncDef::plain("duration", &[Ty::Any], duration),
    FuncDef::ctx("durationRound", &[Ty::Any], None, duration_round).nondeterministic(),
    FuncDef::ctx("ago", &[Ty::Any], None, ago).nondeterministic(),
];

/// Helm 4's duration helpers (`pkg/engine/funcs.go`): conversions between template
/// values and `time.Duration`, built on the same Go duration semantics as Sprig's.
pub static FUNCS_HELM4: &[FuncDef] = &[
    FuncDef::plain("mustToDuration", &[Ty::Any], must_to_duration),
    FuncDef::plain("durationSeconds", &[Ty::Any], duration_seconds),
    FuncDef::plain("durationMilliseconds", &[Ty::Any], duration_milliseconds),
    FuncDef::plain("durationMicroseconds", &[Ty::Any], duration_microseconds),
    FuncDef::plain("durationNanoseconds", &[Ty::Any], duration_nanoseconds),
    FuncDef::plain("durationMinutes", &[Ty::Any], duration_minutes),
    FuncDef::plain("durationHours", &[Ty::Any], duration_hours),
    FuncDef::plain("durationDays", &[Ty::Any], duration_days),
    FuncDef::plain("durationWeeks", &[Ty::Any], duration_weeks),
    FuncDef::plain("durationRoundTo", &[Ty::Any, Ty::Any], duration_round_to),
    FuncDef::plain(
        "durationTruncateTo",
        &[Ty::Any, Ty::Any],
        duration_truncate_to,
    ),
];

/// The monotonic clock reading `now` carries (Go prints it as ` m=+0.050000000`).
/// Real Helm shows the seconds since its process started; any fixed value keeps the
/// shape and the reproducibility.
const NOW_MONOTONIC_NS: i64 = 50_000_000;

// ---- calendar -----------------------------------------------------------------------

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..=12, any day).
/// Arithmetic wraps instead of panicking: templates can ask for absurd dates, and Go
/// wraps silently too.
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y.wrapping_sub(1) } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = ((153 * mp + 2) / 5).wrapping_add(d).wrapping_sub(1);
    let doe = (yoe * 365 + yoe / 4 - yoe / 100).wrapping_add(doy);
    era.wrapping_mul(146_097)
        .wrapping_add(doe)
        .wrapping_sub(719_468)
}

/// (year, month, day) of a day count since 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z.wrapping_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe.wrapping_add(era.wrapping_mul(400));
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y.wrapping_add(1) } else { y }, m, d)
}

/// UTC calendar fields of a Unix time: (year, month, day, hour, minute, second).
pub(crate) fn civil_from_unix(unix: i64) -> (i64, i64, i64, i64, i64, i64) {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    (y, m, d, secs / 3600, secs / 60 % 60, secs % 60)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const LONG_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

// ---- locations ----------------------------------------------------------------------

/// A Go `*time.Location`.
#[derive(Clone, Debug, PartialEq)]
pub enum Loc {
    Utc,
    /// Go's `time.Local`, fixed to UTC here (see the module docs).
    Local,
    /// `time.FixedZone(name, offset)`, as parsing creates for unknown zones.
    Fixed {
        name: Arc<str>,
        offset: i32,
    },
    Tz(chrono_tz::Tz),
}

impl Loc {
    /// Go `time.LoadLocation`: `""` and `"UTC"` are UTC, `"Local"` is Local, other
    /// names come from the IANA database.
    pub fn load(name: &str) -> Option<Loc> {
        match name {
            "" | "UTC" => Some(Loc::Utc),
            "Local" => Some(Loc::Local),
            _ => name.parse::<chrono_tz::Tz>().ok().map(Loc::Tz),
        }
    }

    /// The zone abbreviation and offset east of UTC in effect at `unix`.
    pub fn lookup(&self, unix: i64) -> (String, i32) {
        match self {
            Loc::Utc | Loc::Local => ("UTC".to_string(), 0),
            Loc::Fixed { name, offset } => (name.to_string(), *offset),
            Loc::Tz(tz) => match chrono::DateTime::from_timestamp(unix, 0) {
                Some(dt) => {
                    let off = tz.offset_from_utc_datetime(&dt.naive_utc());
                    let secs = off.fix().local_minus_utc();
                    let abbr = chrono_tz::OffsetName::abbreviation(&off)
                        .map_or_else(|| numeric_abbreviation(secs), str::to_string);
                    (abbr, secs)
                }
                None => ("UTC".to_string(), 0),
            },
        }
    }

    /// `Location.String()`.
    pub fn name(&self) -> String {
        match self {
            Loc::Utc => "UTC".to_string(),
            Loc::Local => "Local".to_string(),
            Loc::Fixed { name, .. } => name.to_string(),
            Loc::Tz(tz) => tz.name().to_string(),
        }
    }
}

/// The name zic gives zones the database leaves unnamed (`%z`): `-03`, `+0545`.
/// chrono-tz reports no abbreviation for those; Go reads zic's output.
fn numeric_abbreviation(offset: i32) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let a = offset.unsigned_abs();
    let (h, m, sec) = (a / 3600, a / 60 % 60, a % 60);
    match (m, sec) {
        (0, 0) => format!("{sign}{h:02}"),
        (_, 0) => format!("{sign}{h:02}{m:02}"),
        _ => format!("{sign}{h:02}{m:02}{sec:02}"),
    }
}

// ---- time.Time ----------------------------------------------------------------------

/// A Go `time.Time`: an instant, a location, and possibly a monotonic reading.
#[derive(Clone, Debug, PartialEq)]
pub struct GoTime {
    /// Seconds since the Unix epoch.
    pub unix: i64,
    pub nsec: u32,
    pub loc: Loc,
    /// Monotonic clock reading in nanoseconds (only `now` and times derived from it
    /// with `Add`).
    pub mono: Option<i64>,
}

/// Unix seconds of Go's zero `time.Time` (January 1, year 1, UTC).
const ZERO_UNIX: i64 = -62_135_596_800;

impl GoTime {
    pub fn zero() -> GoTime {
        GoTime {
            unix: ZERO_UNIX,
            nsec: 0,
            loc: Loc::Utc,
            mono: None,
        }
    }

    pub fn from_unix(unix: i64, loc: Loc) -> GoTime {
        GoTime {
            unix,
            nsec: 0,
            loc,
            mono: None,
        }
    }

    /// The host clock as `time.Now()` returns it.
    pub fn now(host: &Host) -> GoTime {
        GoTime {
            unix: host.now_unix,
            nsec: host.now_nanos.min(999_999_999),
            loc: Loc::Local,
            mono: Some(NOW_MONOTONIC_NS),
        }
    }

    /// Go `time.Date`, normalising out-of-range fields like Go does.
    #[allow(clippy::too_many_arguments)]
    pub fn date(
        year: i64,
        month: i64,
        day: i64,
        hour: i64,
        min: i64,
        sec: i64,
        nsec: i64,
        loc: Loc,
    ) -> GoTime {
        let m0 = month.wrapping_sub(1);
        let year = year.wrapping_add(m0.div_euclid(12));
        let month = m0.rem_euclid(12) + 1;
        let sec = sec.wrapping_add(nsec.div_euclid(1_000_000_000));
        let nsec = nsec.rem_euclid(1_000_000_000);
        let days = days_from_civil(year, month, 1)
            .wrapping_add(day)
            .wrapping_sub(1);
        let mut unix = days
            .wrapping_mul(86_400)
            .wrapping_add(hour.wrapping_mul(3600))
            .wrapping_add(min.wrapping_mul(60))
            .wrapping_add(sec);
        let (_, off) = loc.lookup(unix);
        if off != 0 {
            let guess = unix.wrapping_sub(i64::from(off));
            let (_, off2) = loc.lookup(guess);
            unix = unix.wrapping_sub(i64::from(off2));
        }
        GoTime {
            unix,
            nsec: nsec as u32,
            loc,
            mono: None,
        }
    }

    fn nanos_total(&self) -> i128 {
        i128::from(self.unix) * 1_000_000_000 + i128::from(self.nsec)
    }

    fn from_nanos_total(total: i128, loc: Loc, mono: Option<i64>) -> GoTime {
        let unix = total.div_euclid(1_000_000_000) as i64;
        let nsec = total.rem_euclid(1_000_000_000) as u32;
        GoTime {
            unix,
            nsec,
            loc,
            mono,
        }
    }

    /// `t.Add(d)`; keeps the monotonic reading, as Go does.
    pub fn add(&self, d: i64) -> GoTime {
        GoTime::from_nanos_total(
            self.nanos_total() + i128::from(d),
            self.loc.clone(),
            self.mono.map(|m| m.wrapping_add(d)),
        )
    }

    /// `t.Sub(u)` saturated to the `Duration` range.
    pub fn sub(&self, other: &GoTime) -> i64 {
        let d = match (self.mono, other.mono) {
            (Some(a), Some(b)) => i128::from(a) - i128::from(b),
            _ => self.nanos_total() - other.nanos_total(),
        };
        d.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }

    pub fn in_loc(&self, loc: Loc) -> GoTime {
        GoTime {
            loc,
            mono: None,
            ..self.clone()
        }
    }

    /// Abbreviation, offset and the shifted seconds used for calendar fields.
    fn local(&self) -> (String, i32, i64) {
        let (name, off) = self.loc.lookup(self.unix);
        (name, off, self.unix.wrapping_add(i64::from(off)))
    }

    fn fields(&self) -> Fields {
        let (_, _, local) = self.local();
        let days = local.div_euclid(86_400);
        let secs = local.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        Fields {
            year,
            month,
            day,
            yday: days - days_from_civil(year, 1, 1) + 1,
            weekday: (days + 4).rem_euclid(7),
            hour: secs / 3600,
            min: secs / 60 % 60,
            sec: secs % 60,
        }
    }

    /// Go `t.Format(layout)`.
    pub fn format(&self, layout: &str) -> String {
        let (zone_name, offset, _) = self.local();
        let f = self.fields();
        let mut out = String::with_capacity(layout.len() + 10);
        let mut rest = layout;
        while !rest.is_empty() {
            let (prefix, std, suffix) = next_std_chunk(rest);
            out.push_str(prefix);
            let Some(std) = std else {
                break;
            };
            rest = suffix;
            format_std(&mut out, std, &f, self.nsec, &zone_name, offset);
        }
        out
    }

    /// Go `t.String()`.
    pub fn go_string(&self) -> String {
        let mut s = self.format("2006-01-02 15:04:05.999999999 -0700 MST");
        if let Some(m) = self.mono {
            let sign = if m < 0 { '-' } else { '+' };
            let u = m.unsigned_abs();
            s.push_str(&format!(
                " m={sign}{}.{:09}",
                u / 1_000_000_000,
                u % 1_000_000_000
            ));
        }
        s
    }

    /// Go `t.Unix()`.
    pub fn unix(&self) -> i64 {
        self.unix
    }
}

struct Fields {
    year: i64,
    month: i64,
    day: i64,
    yday: i64,
    weekday: i64,
    hour: i64,
    min: i64,
    sec: i64,
}

// ---- layouts ------------------------------------------------------------------------

/// One element of a Go layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    TZ,
    Iso8601TZ,
    Iso8601SecondsTZ,
    Iso8601ShortTZ,
    Iso8601ColonTZ,
    Iso8601ColonSecondsTZ,
    NumTZ,
    NumSecondsTz,
    NumShortTZ,
    NumColonTZ,
    NumColonSecondsTZ,
    /// Fractional seconds: digit count, separator, trailing zeros trimmed (`.999`).
    Frac {
        digits: usize,
        sep: u8,
        trim: bool,
    },
}

fn starts_with_lower(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
}

/// Go's `nextStdChunk`: the text before the first layout element, the element, and
/// the text after it.
fn next_std_chunk(layout: &str) -> (&str, Option<Std>, &str) {
    let b = layout.as_bytes();
    let at = |i: usize, s: &str| layout.get(i..).is_some_and(|r| r.starts_with(s));
    for i in 0..b.len() {
        let ret = |std: Std, len: usize| (&layout[..i], Some(std), &layout[i + len..]);
        match b[i] {
            b'J' if at(i, "Jan") => {
                if at(i, "January") {
                    return ret(Std::LongMonth, 7);
                }
                if !starts_with_lower(&layout[i + 3..]) {
                    return ret(Std::Month, 3);
                }
            }
            b'M' => {
                if at(i, "Mon") {
                    if at(i, "Monday") {
                        return ret(Std::LongWeekDay, 6);
                    }
                    if !starts_with_lower(&layout[i + 3..]) {
                        return ret(Std::WeekDay, 3);
                    }
                }
                if at(i, "MST") {
                    return ret(Std::TZ, 3);
                }
            }
            b'0' => {
                if let Some(&c) = b.get(i + 1) {
                    if (b'1'..=b'6').contains(&c) {
                        let std = [
                            Std::ZeroMonth,
                            Std::ZeroDay,
                            Std::ZeroHour12,
                            Std::ZeroMinute,
                            Std::ZeroSecond,
                            Std::Year,
                        ][usize::from(c - b'1')];
                        return ret(std, 2);
                    }
                }
                if at(i, "002") {
                    return ret(Std::ZeroYearDay, 3);
                }
            }
            b'1' => {
                if at(i, "15") {
                    return ret(Std::Hour, 2);
                }
                return ret(Std::NumMonth, 1);
            }
            b'2' => {
                if at(i, "2006") {
                    return ret(Std::LongYear, 4);
                }
                return ret(Std::Day, 1);
            }
            b'_' => {
                if at(i, "_2") {
                    // `_2006` is a literal underscore followed by the long year.
                    if at(i, "_2006") {
                        return (&layout[..i + 1], Some(Std::LongYear), &layout[i + 5..]);
                    }
                    return ret(Std::UnderDay, 2);
                }
                if at(i, "__2") {
                    return ret(Std::UnderYearDay, 3);
                }
            }
            b'3' => return ret(Std::Hour12, 1),
            b'4' => return ret(Std::Minute, 1),
            b'5' => return ret(Std::Second, 1),
            b'P' if at(i, "PM") => return ret(Std::PM, 2),
            b'p' if at(i, "pm") => return ret(Std::Pm, 2),
            b'-' => {
                for (pat, std) in [
                    ("-070000", Std::NumSecondsTz),
                    ("-07:00:00", Std::NumColonSecondsTZ),
                    ("-0700", Std::NumTZ),
                    ("-07:00", Std::NumColonTZ),
                    ("-07", Std::NumShortTZ),
                ] {
                    if at(i, pat) {
                        return ret(std, pat.len());
                    }
                }
            }
            b'Z' => {
                for (pat, std) in [
                    ("Z070000", Std::Iso8601SecondsTZ),
                    ("Z07:00:00", Std::Iso8601ColonSecondsTZ),
                    ("Z0700", Std::Iso8601TZ),
                    ("Z07:00", Std::Iso8601ColonTZ),
                    ("Z07", Std::Iso8601ShortTZ),
                ] {
                    if at(i, pat) {
                        return ret(std, pat.len());
                    }
                }
            }
            c @ (b'.' | b',') => {
                if let Some(&d) = b.get(i + 1) {
                    if d == b'0' || d == b'9' {
                        let mut j = i + 1;
                        while j < b.len() && b[j] == d {
                            j += 1;
                        }
                        if !b.get(j).is_some_and(u8::is_ascii_digit) {
                            let std = Std::Frac {
                                digits: j - (i + 1),
                                sep: c,
                                trim: d == b'9',
                            };
                            return (&layout[..i], Some(std), &layout[j..]);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (layout, None, "")
}

/// Go's `appendInt`: decimal, zero-padded to `width` digits, sign first.
fn push_int(out: &mut String, x: i64, width: usize) {
    if x < 0 {
        out.push('-');
    }
    let digits = x.unsigned_abs().to_string();
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(&digits);
}

fn format_std(out: &mut String, std: Std, f: &Fields, nsec: u32, zone: &str, offset: i32) {
    match std {
        Std::Year => push_int(out, (f.year.abs()) % 100, 2),
        Std::LongYear => push_int(out, f.year, 4),
        Std::Month => out.push_str(&LONG_MONTHS[(f.month - 1) as usize][..3]),
        Std::LongMonth => out.push_str(LONG_MONTHS[(f.month - 1) as usize]),
        Std::NumMonth => push_int(out, f.month, 0),
        Std::ZeroMonth => push_int(out, f.month, 2),
        Std::WeekDay => out.push_str(&LONG_DAYS[f.weekday as usize][..3]),
        Std::LongWeekDay => out.push_str(LONG_DAYS[f.weekday as usize]),
        Std::Day => push_int(out, f.day, 0),
        Std::UnderDay => {
            if f.day < 10 {
                out.push(' ');
            }
            push_int(out, f.day, 0);
        }
        Std::ZeroDay => push_int(out, f.day, 2),
        Std::UnderYearDay => {
            if f.yday < 100 {
                out.push(' ');
                if f.yday < 10 {
                    out.push(' ');
                }
            }
            push_int(out, f.yday, 0);
        }
        Std::ZeroYearDay => push_int(out, f.yday, 3),
        Std::Hour => push_int(out, f.hour, 2),
        Std::Hour12 | Std::ZeroHour12 => {
            let hr = if f.hour % 12 == 0 { 12 } else { f.hour % 12 };
            push_int(out, hr, if std == Std::ZeroHour12 { 2 } else { 0 });
        }
        Std::Minute => push_int(out, f.min, 0),
        Std::ZeroMinute => push_int(out, f.min, 2),
        Std::Second => push_int(out, f.sec, 0),
        Std::ZeroSecond => push_int(out, f.sec, 2),
        Std::PM => out.push_str(if f.hour >= 12 { "PM" } else { "AM" }),
        Std::Pm => out.push_str(if f.hour >= 12 { "pm" } else { "am" }),
        Std::Iso8601TZ
        | Std::Iso8601ColonTZ
        | Std::Iso8601SecondsTZ
        | Std::Iso8601ShortTZ
        | Std::Iso8601ColonSecondsTZ
        | Std::NumTZ
        | Std::NumColonTZ
        | Std::NumSecondsTz
        | Std::NumShortTZ
        | Std::NumColonSecondsTZ => {
            let iso = matches!(
                std,
                Std::Iso8601TZ
                    | Std::Iso8601ColonTZ
                    | Std::Iso8601SecondsTZ
                    | Std::Iso8601ShortTZ
                    | Std::Iso8601ColonSecondsTZ
            );
            if offset == 0 && iso {
                out.push('Z');
                return;
            }
            let mut zone_min = i64::from(offset) / 60;
            let mut abs_off = i64::from(offset);
            if zone_min < 0 {
                out.push('-');
                zone_min = -zone_min;
                abs_off = -abs_off;
            } else {
                out.push('+');
            }
            push_int(out, zone_min / 60, 2);
            let colon = matches!(
                std,
                Std::Iso8601ColonTZ
                    | Std::NumColonTZ
                    | Std::Iso8601ColonSecondsTZ
                    | Std::NumColonSecondsTZ
            );
            if colon {
                out.push(':');
            }
            if !matches!(std, Std::NumShortTZ | Std::Iso8601ShortTZ) {
                push_int(out, zone_min % 60, 2);
            }
            if matches!(
                std,
                Std::Iso8601SecondsTZ
                    | Std::NumSecondsTz
                    | Std::NumColonSecondsTZ
                    | Std::Iso8601ColonSecondsTZ
            ) {
                if matches!(std, Std::NumColonSecondsTZ | Std::Iso8601ColonSecondsTZ) {
                    out.push(':');
                }
                push_int(out, abs_off % 60, 2);
            }
        }
        Std::TZ => {
            if !zone.is_empty() {
                out.push_str(zone);
                return;
            }
            let mut zone_min = i64::from(offset) / 60;
            if zone_min < 0 {
                out.push('-');
                zone_min = -zone_min;
            } else {
                out.push('+');
            }
            push_int(out, zone_min / 60, 2);
            push_int(out, zone_min % 60, 2);
        }
        Std::Frac { digits, sep, trim } => {
            if trim && (digits == 0 || nsec == 0) {
                return;
            }
            let all = format!("{nsec:09}");
            let mut frac = all[..digits.min(9)].to_string();
            if trim {
                while frac.ends_with('0') {
                    frac.pop();
                }
                if frac.is_empty() {
                    return;
                }
            }
            out.push(sep as char);
            out.push_str(&frac);
        }
    }
}

// ---- parsing ------------------------------------------------------------------------

/// Go's `time.quote`: double quotes, backslash escapes for `"` and `\`, and `\xNN`
/// for every byte of a non-ASCII or control character.
pub(crate) fn go_time_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if (c as u32) >= 0x80 || c < ' ' {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// A Go `*time.ParseError`.
#[derive(Debug)]
struct ParseError {
    layout: String,
    value: String,
    layout_elem: String,
    value_elem: String,
    message: String,
}

impl ParseError {
    fn text(&self) -> String {
        if self.message.is_empty() {
            format!(
                "parsing time {} as {}: cannot parse {} as {}",
                go_time_quote(&self.value),
                go_time_quote(&self.layout),
                go_time_quote(&self.value_elem),
                go_time_quote(&self.layout_elem)
            )
        } else {
            format!(
                "parsing time {}{}",
                go_time_quote(&self.value),
                self.message
            )
        }
    }
}

/// Go's `getnum`: one or two digits (`fixed`: exactly two).
fn getnum(s: &str, fixed: bool) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if !b.get(1).is_some_and(u8::is_ascii_digit) {
        if fixed {
            return None;
        }
        return Some((i64::from(b[0] - b'0'), &s[1..]));
    }
    Some((
        i64::from(b[0] - b'0') * 10 + i64::from(b[1] - b'0'),
        &s[2..],
    ))
}

fn getnum3(s: &str, fixed: bool) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    let mut n = 0i64;
    let mut i = 0;
    while i < 3 && b.get(i).is_some_and(u8::is_ascii_digit) {
        n = n * 10 + i64::from(b[i] - b'0');
        i += 1;
    }
    if i == 0 || (fixed && i != 3) {
        return None;
    }
    Some((n, &s[i..]))
}

/// Go's `atoi` for the short numeric fields of a layout.
fn small_atoi(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (x, rem) = leading_int(digits)?;
    if !rem.is_empty() {
        return None;
    }
    let x = i64::try_from(x).ok()?;
    Some(if neg { -x } else { x })
}

/// Go's `leadingInt`: the leading digits of `s` as a number (`None` on overflow).
fn leading_int(s: &str) -> Option<(u64, &str)> {
    let mut x: u64 = 0;
    let mut i = 0;
    for c in s.bytes() {
        if !c.is_ascii_digit() {
            break;
        }
        if x > (1u64 << 63) / 10 {
            return None;
        }
        x = x * 10 + u64::from(c - b'0');
        if x > 1u64 << 63 {
            return None;
        }
        i += 1;
    }
    Some((x, &s[i..]))
}

fn lookup_name<'a>(names: &[&str], short: bool, val: &'a str) -> Option<(usize, &'a str)> {
    for (i, full) in names.iter().enumerate() {
        let v = if short { &full[..3] } else { full };
        if val.len() >= v.len() && val.as_bytes()[..v.len()].eq_ignore_ascii_case(v.as_bytes()) {
            return Some((i, &val[v.len()..]));
        }
    }
    None
}

/// Go's `skip`: match `prefix` literally, a run of spaces matching any run.
fn skip<'a>(mut value: &'a str, mut prefix: &str) -> Result<&'a str, &'a str> {
    while !prefix.is_empty() {
        if prefix.as_bytes()[0] == b' ' {
            if !value.is_empty() && value.as_bytes()[0] != b' ' {
                return Err(value);
            }
            prefix = prefix.trim_start_matches(' ');
            value = value.trim_start_matches(' ');
            continue;
        }
        if value.is_empty() || value.as_bytes()[0] != prefix.as_bytes()[0] {
            return Err(value);
        }
        // Compare byte-wise; advance both by one byte (UTF-8 safe because the byte
        // matched the same position of a valid string).
        let n = prefix.chars().next().map_or(1, char::len_utf8);
        if value.len() < n || value.as_bytes()[..n] != prefix.as_bytes()[..n] {
            return Err(value);
        }
        prefix = &prefix[n..];
        value = &value[n..];
    }
    Ok(value)
}

fn parse_time_zone(value: &str) -> Option<usize> {
    let b = value.as_bytes();
    if b.len() < 3 {
        return None;
    }
    if value.starts_with("ChST") || value.starts_with("MeST") {
        return Some(4);
    }
    if let Some(rest) = value.strip_prefix("GMT") {
        return Some(3 + parse_signed_offset(rest));
    }
    if b[0] == b'+' || b[0] == b'-' {
        let n = parse_signed_offset(value);
        return (n > 0).then_some(n);
    }
    let upper = b
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_uppercase())
        .count();
    match upper {
        5 if b[4] == b'T' => Some(5),
        4 if b[3] == b'T' || value.starts_with("WITA") => Some(4),
        3 => Some(3),
        _ => None,
    }
}

fn parse_signed_offset(value: &str) -> usize {
    let Some(&sign) = value.as_bytes().first() else {
        return 0;
    };
    if sign != b'-' && sign != b'+' {
        return 0;
    }
    match leading_int(&value[1..]) {
        Some((x, rem)) if rem.len() != value.len() - 1 && x <= 23 => value.len() - rem.len(),
        _ => 0,
    }
}

/// Go's `parseNanoseconds`: `value[0]` is the separator, then `nbytes - 1` digits.
fn parse_nanoseconds(value: &str, nbytes: usize) -> Result<i64, ()> {
    if !matches!(value.as_bytes().first(), Some(b'.' | b',')) {
        return Err(());
    }
    let nbytes = nbytes.min(10);
    let ns = small_atoi(value.get(1..nbytes).ok_or(())?).ok_or(())?;
    let mut ns = ns;
    for _ in 0..(10 - nbytes) {
        ns *= 10;
    }
    Ok(ns)
}

/// Whether `value` parses with Go layout `layout`, or the text of Go's
/// `*time.ParseError` (as JSON-schema `date` checks report it).
pub(crate) fn check_layout(layout: &str, value: &str) -> Result<(), String> {
    parse_time(layout, value).map(|_| ()).map_err(|e| e.text())
}

/// Go `time.ParseInLocation(layout, value, time.Local)` (Sprig's `toDate`).
fn parse_time(layout: &str, value: &str) -> Result<GoTime, ParseError> {
    let (alayout, avalue) = (layout, value);
    let err = |layout_elem: &str, value_elem: &str, message: &str| ParseError {
        layout: alayout.to_string(),
        value: avalue.to_string(),
        layout_elem: layout_elem.to_string(),
        value_elem: value_elem.to_string(),
        message: message.to_string(),
    };
    let mut layout = layout;
    let mut value = value;
    let mut range_err = "";
    let (mut am_set, mut pm_set) = (false, false);
    let (mut year, mut month, mut day, mut yday) = (0i64, -1i64, -1i64, -1i64);
    let (mut hour, mut min, mut sec, mut nsec) = (0i64, 0i64, 0i64, 0i64);
    let mut z: Option<Loc> = None;
    let mut zone_offset: Option<i64> = None;
    let mut zone_name = String::new();

    loop {
        let (prefix, std, suffix) = next_std_chunk(layout);
        let std_str = &layout[prefix.len()..layout.len() - suffix.len()];
        value = match skip(value, prefix) {
            Ok(v) => v,
            Err(v) => return Err(err(prefix, v, "")),
        };
        let Some(std) = std else {
            if !value.is_empty() {
                return Err(err(
                    "",
                    value,
                    &format!(": extra text: {}", go_time_quote(value)),
                ));
            }
            break;
        };
        layout = suffix;
        let hold = value;
        let mut bad = false;
        match std {
            Std::Year => {
                if value.len() < 2 || !value.is_char_boundary(2) {
                    bad = true;
                } else {
                    let (p, rest) = value.split_at(2);
                    value = rest;
                    match small_atoi(p) {
                        Some(y) => year = if y >= 69 { y + 1900 } else { y + 2000 },
                        None => bad = true,
                    }
                }
            }
            Std::LongYear => {
                if value.len() < 4
                    || !value.as_bytes()[0].is_ascii_digit()
                    || !value.is_char_boundary(4)
                {
                    bad = true;
                } else {
                    let (p, rest) = value.split_at(4);
                    value = rest;
                    match small_atoi(p) {
                        Some(y) => year = y,
                        None => bad = true,
                    }
                }
            }
            Std::Month | Std::LongMonth => {
                match lookup_name(&LONG_MONTHS, std == Std::Month, value) {
                    Some((i, rest)) => {
                        month = i as i64 + 1;
                        value = rest;
                    }
                    None => bad = true,
                }
            }
            Std::NumMonth | Std::ZeroMonth => match getnum(value, std == Std::ZeroMonth) {
                Some((m, rest)) => {
                    month = m;
                    value = rest;
                    if !(1..=12).contains(&m) {
                        range_err = "month";
                    }
                }
                None => bad = true,
            },
            Std::WeekDay | Std::LongWeekDay => {
                match lookup_name(&LONG_DAYS, std == Std::WeekDay, value) {
                    Some((_, rest)) => value = rest,
                    None => bad = true,
                }
            }
            Std::Day | Std::UnderDay | Std::ZeroDay => {
                if std == Std::UnderDay && value.starts_with(' ') {
                    value = &value[1..];
                }
                match getnum(value, std == Std::ZeroDay) {
                    Some((d, rest)) => {
                        day = d;
                        value = rest;
                    }
                    None => bad = true,
                }
            }
            Std::UnderYearDay | Std::ZeroYearDay => {
                for _ in 0..2 {
                    if std == Std::UnderYearDay && value.starts_with(' ') {
                        value = &value[1..];
                    }
                }
                match getnum3(value, std == Std::ZeroYearDay) {
                    Some((d, rest)) => {
                        yday = d;
                        value = rest;
                    }
                    None => bad = true,
                }
            }
            Std::Hour => match getnum(value, false) {
                Some((h, rest)) => {
                    hour = h;
                    value = rest;
                    if !(0..24).contains(&h) {
                        range_err = "hour";
                    }
                }
                None => bad = true,
            },
            Std::Hour12 | Std::ZeroHour12 => match getnum(value, std == Std::ZeroHour12) {
                Some((h, rest)) => {
                    hour = h;
                    value = rest;
                    if !(0..=12).contains(&h) {
                        range_err = "hour";
                    }
                }
                None => bad = true,
            },
            Std::Minute | Std::ZeroMinute => match getnum(value, std == Std::ZeroMinute) {
                Some((m, rest)) => {
                    min = m;
                    value = rest;
                    if !(0..60).contains(&m) {
                        range_err = "minute";
                    }
                }
                None => bad = true,
            },
            Std::Second | Std::ZeroSecond => match getnum(value, std == Std::ZeroSecond) {
                Some((s, rest)) => {
                    sec = s;
                    value = rest;
                    if !(0..60).contains(&s) {
                        range_err = "second";
                    } else {
                        let vb = value.as_bytes();
                        // A fractional second in the input that the layout lacks.
                        if vb.len() >= 2 && matches!(vb[0], b'.' | b',') && vb[1].is_ascii_digit() {
                            let (_, next, _) = next_std_chunk(layout);
                            if !matches!(next, Some(Std::Frac { .. })) {
                                let mut n = 2;
                                while n < vb.len() && vb[n].is_ascii_digit() {
                                    n += 1;
                                }
                                match parse_nanoseconds(value, n) {
                                    Ok(ns) => nsec = ns,
                                    Err(()) => bad = true,
                                }
                                value = &value[n..];
                            }
                        }
                    }
                }
                None => bad = true,
            },
            Std::PM | Std::Pm => {
                let (pm, am) = if std == Std::PM {
                    ("PM", "AM")
                } else {
                    ("pm", "am")
                };
                if value.len() < 2 || !value.is_char_boundary(2) {
                    bad = true;
                } else {
                    let (p, rest) = value.split_at(2);
                    value = rest;
                    if p == pm {
                        pm_set = true;
                    } else if p == am {
                        am_set = true;
                    } else {
                        bad = true;
                    }
                }
            }
            Std::Iso8601TZ
            | Std::Iso8601ShortTZ
            | Std::Iso8601ColonTZ
            | Std::Iso8601SecondsTZ
            | Std::Iso8601ColonSecondsTZ
                if value.starts_with('Z') =>
            {
                value = &value[1..];
                z = Some(Loc::Utc);
            }
            Std::Iso8601TZ
            | Std::Iso8601ShortTZ
            | Std::Iso8601ColonTZ
            | Std::Iso8601SecondsTZ
            | Std::Iso8601ColonSecondsTZ
            | Std::NumTZ
            | Std::NumShortTZ
            | Std::NumColonTZ
            | Std::NumSecondsTz
            | Std::NumColonSecondsTZ => {
                let vb = value.as_bytes();
                let parts: Option<(usize, usize, usize, usize)> = match std {
                    // (hour start, minute start or none, second start or none, total)
                    Std::Iso8601ColonTZ | Std::NumColonTZ => {
                        (vb.len() >= 6 && vb[3] == b':').then_some((1, 4, usize::MAX, 6))
                    }
                    Std::NumShortTZ | Std::Iso8601ShortTZ => {
                        (vb.len() >= 3).then_some((1, usize::MAX, usize::MAX, 3))
                    }
                    Std::Iso8601ColonSecondsTZ | Std::NumColonSecondsTZ => {
                        (vb.len() >= 9 && vb[3] == b':' && vb[6] == b':').then_some((1, 4, 7, 9))
                    }
                    Std::Iso8601SecondsTZ | Std::NumSecondsTz => {
                        (vb.len() >= 7).then_some((1, 3, 5, 7))
                    }
                    _ => (vb.len() >= 5).then_some((1, 3, usize::MAX, 5)),
                };
                match parts {
                    None => bad = true,
                    Some((h, m, s, total)) => {
                        let two = |at: usize| -> Option<i64> {
                            if at == usize::MAX {
                                return Some(0);
                            }
                            let d = vb.get(at..at + 2)?;
                            if d.iter().all(u8::is_ascii_digit) {
                                Some(i64::from(d[0] - b'0') * 10 + i64::from(d[1] - b'0'))
                            } else {
                                None
                            }
                        };
                        let sign = vb[0];
                        match (two(h), two(m), two(s)) {
                            (Some(hr), Some(mm), Some(ss)) => {
                                if hr > 24 {
                                    range_err = "time zone offset hour";
                                }
                                if mm > 60 {
                                    range_err = "time zone offset minute";
                                }
                                if ss > 60 {
                                    range_err = "time zone offset second";
                                }
                                let off = (hr * 60 + mm) * 60 + ss;
                                match sign {
                                    b'+' => zone_offset = Some(off),
                                    b'-' => zone_offset = Some(-off),
                                    _ => bad = true,
                                }
                            }
                            _ => bad = true,
                        }
                        if value.is_char_boundary(total) {
                            value = &value[total..];
                        } else {
                            bad = true;
                        }
                    }
                }
            }
            Std::TZ => {
                if value.starts_with("UTC") {
                    z = Some(Loc::Utc);
                    value = &value[3..];
                } else {
                    match parse_time_zone(value) {
                        Some(n) if value.is_char_boundary(n) => {
                            zone_name = value[..n].to_string();
                            value = &value[n..];
                        }
                        _ => bad = true,
                    }
                }
            }
            Std::Frac { digits, trim, .. } => {
                if !trim {
                    let ndigit = 1 + digits;
                    if value.len() < ndigit {
                        bad = true;
                    } else {
                        match parse_nanoseconds(value, ndigit) {
                            Ok(ns) => nsec = ns,
                            Err(()) => bad = true,
                        }
                        if value.is_char_boundary(ndigit) {
                            value = &value[ndigit..];
                        } else {
                            bad = true;
                        }
                    }
                } else {
                    let vb = value.as_bytes();
                    if vb.len() >= 2 && matches!(vb[0], b'.' | b',') && vb[1].is_ascii_digit() {
                        let mut i = 0;
                        while i + 1 < vb.len() && vb[i + 1].is_ascii_digit() {
                            i += 1;
                        }
                        match parse_nanoseconds(value, 1 + i) {
                            Ok(ns) => nsec = ns,
                            Err(()) => bad = true,
                        }
                        value = &value[1 + i..];
                    }
                }
            }
        }
        if !range_err.is_empty() {
            return Err(err(std_str, value, &format!(": {range_err} out of range")));
        }
        if bad {
            return Err(err(std_str, hold, ""));
        }
    }
    if pm_set && hour < 12 {
        hour += 12;
    } else if am_set && hour == 12 {
        hour = 0;
    }

    if yday >= 0 {
        let mut d = 0i64;
        let mut m = 0i64;
        let mut yd = yday;
        if is_leap(year) {
            if yd == 31 + 29 {
                m = 2;
                d = 29;
            } else if yd > 31 + 29 {
                yd -= 1;
            }
        }
        if !(1..=365).contains(&yd) {
            return Err(err("", value, ": day-of-year out of range"));
        }
        if m == 0 {
            // Days before each month in a non-leap year.
            const BEFORE: [i64; 13] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];
            m = (yd - 1) / 31 + 1;
            if BEFORE[m as usize] < yd {
                m += 1;
            }
            d = yd - BEFORE[(m - 1) as usize];
        }
        if month >= 0 && month != m {
            return Err(err("", value, ": day-of-year does not match month"));
        }
        month = m;
        if day >= 0 && day != d {
            return Err(err("", value, ": day-of-year does not match day"));
        }
        day = d;
    } else {
        if month < 0 {
            month = 1;
        }
        if day < 0 {
            day = 1;
        }
    }
    if day < 1 || day > days_in(month, year) {
        return Err(err("", value, ": day out of range"));
    }

    if let Some(loc) = z {
        return Ok(GoTime::date(year, month, day, hour, min, sec, nsec, loc));
    }
    if let Some(off) = zone_offset {
        let t = GoTime::date(year, month, day, hour, min, sec, nsec, Loc::Utc);
        let t = GoTime {
            unix: t.unix - off,
            ..t
        };
        // The local zone (UTC) matches only a zero offset with no other name.
        if off == 0 && (zone_name.is_empty() || zone_name == "UTC") {
            return Ok(t.in_loc(Loc::Local));
        }
        return Ok(t.in_loc(Loc::Fixed {
            name: zone_name.into(),
            offset: off as i32,
        }));
    }
    if !zone_name.is_empty() {
        let t = GoTime::date(year, month, day, hour, min, sec, nsec, Loc::Utc);
        let mut offset = 0i64;
        if zone_name.len() > 3 && zone_name.starts_with("GMT") {
            offset = small_atoi(&zone_name[3..]).unwrap_or(0) * 3600;
        }
        return Ok(t.in_loc(Loc::Fixed {
            name: zone_name.into(),
            offset: offset as i32,
        }));
    }
    Ok(GoTime::date(
        year,
        month,
        day,
        hour,
        min,
        sec,
        nsec,
        Loc::Local,
    ))
}

// ---- durations ----------------------------------------------------------------------

const NANOSECOND: u64 = 1;
const MICROSECOND: u64 = 1000 * NANOSECOND;
const MILLISECOND: u64 = 1000 * MICROSECOND;
const SECOND: u64 = 1000 * MILLISECOND;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;

/// Go's `fmtFrac`: the fraction of `v` below `10^prec`, trailing zeros dropped (and
/// the point with them), prepended to `buf`; returns `v` without the fraction.
fn fmt_frac(buf: &mut Vec<u8>, mut v: u64, prec: usize) -> u64 {
    let mut print = false;
    let mut digits = Vec::new();
    for _ in 0..prec {
        let digit = v % 10;
        print = print || digit != 0;
        if print {
            digits.push(b'0' + digit as u8);
        }
        v /= 10;
    }
    if print {
        digits.push(b'.');
    }
    digits.reverse();
    let mut out = digits;
    out.append(buf);
    *buf = out;
    v
}

/// Go `time.Duration.String()`.
pub fn format_duration(d: i64) -> String {
    let neg = d < 0;
    let mut u = d.unsigned_abs();
    // Built back to front, as Go does, then reversed pieces are prepended.
    let mut buf: Vec<u8> = Vec::new();
    let prepend = |buf: &mut Vec<u8>, s: &[u8]| {
        let mut n = s.to_vec();
        n.append(buf);
        *buf = n;
    };
    if u < SECOND {
        let (prec, unit): (usize, &[u8]) = if u == 0 {
            return "0s".to_string();
        } else if u < MICROSECOND {
            (0, b"ns")
        } else if u < MILLISECOND {
            (3, "µs".as_bytes())
        } else {
            (6, b"ms")
        };
        prepend(&mut buf, unit);
        u = fmt_frac(&mut buf, u, prec);
        prepend(&mut buf, u.to_string().as_bytes());
    } else {
        prepend(&mut buf, b"s");
        u = fmt_frac(&mut buf, u, 9);
        prepend(&mut buf, (u % 60).to_string().as_bytes());
        u /= 60;
        if u > 0 {
            prepend(&mut buf, b"m");
            prepend(&mut buf, (u % 60).to_string().as_bytes());
            u /= 60;
            if u > 0 {
                prepend(&mut buf, b"h");
                prepend(&mut buf, u.to_string().as_bytes());
            }
        }
    }
    if neg {
        prepend(&mut buf, b"-");
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Go `time.ParseDuration`, error texts included.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let orig = s;
    let invalid = || format!("time: invalid duration {}", go_time_quote(orig));
    let mut s = s;
    let mut neg = false;
    if let Some(c) = s.as_bytes().first() {
        if *c == b'-' || *c == b'+' {
            neg = *c == b'-';
            s = &s[1..];
        }
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut d: u64 = 0;
    while !s.is_empty() {
        let c = s.as_bytes()[0];
        if !(c == b'.' || c.is_ascii_digit()) {
            return Err(invalid());
        }
        let before = s.len();
        let (v, rest) = leading_int(s).ok_or_else(invalid)?;
        s = rest;
        let pre = before != s.len();
        let (mut f, mut scale) = (0u64, 1f64);
        let mut post = false;
        if s.starts_with('.') {
            s = &s[1..];
            let pl = s.len();
            let mut overflow = false;
            let mut i = 0;
            for ch in s.bytes() {
                if !ch.is_ascii_digit() {
                    break;
                }
                i += 1;
                if overflow {
                    continue;
                }
                if f > (i64::MAX as u64) / 10 {
                    overflow = true;
                    continue;
                }
                let y = f * 10 + u64::from(ch - b'0');
                if y > 1u64 << 63 {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10.0;
            }
            s = &s[i..];
            post = pl != s.len();
        }
        if !pre && !post {
            return Err(invalid());
        }
        let i = s
            .bytes()
            .position(|c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if i == 0 {
            return Err(format!(
                "time: missing unit in duration {}",
                go_time_quote(orig)
            ));
        }
        let u = &s[..i];
        s = &s[i..];
        let unit = match u {
            "ns" => NANOSECOND,
            "us" | "µs" | "μs" => MICROSECOND,
            "ms" => MILLISECOND,
            "s" => SECOND,
            "m" => MINUTE,
            "h" => HOUR,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    go_time_quote(u),
                    go_time_quote(orig)
                ))
            }
        };
        if v > (1u64 << 63) / unit {
            return Err(invalid());
        }
        let mut v = v * unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > 1u64 << 63 {
                return Err(invalid());
            }
        }
        d += v;
        if d > 1u64 << 63 {
            return Err(invalid());
        }
    }
    if neg {
        return Ok((d as i64).wrapping_neg());
    }
    if d > i64::MAX as u64 {
        return Err(invalid());
    }
    Ok(d as i64)
}

/// Go `Duration.Round(m)`.
fn round_duration(d: i64, m: i64) -> i64 {
    if m <= 0 {
        return d;
    }
    let less_than_half = |x: i64, y: i64| (x as u64).wrapping_add(x as u64) < y as u64;
    let mut r = d % m;
    if d < 0 {
        r = -r;
        if less_than_half(r, m) {
            return d + r;
        }
        let d1 = d.wrapping_sub(m).wrapping_add(r);
        if d1 < d {
            return d1;
        }
        return i64::MIN;
    }
    if less_than_half(r, m) {
        return d - r;
    }
    let d1 = d.wrapping_add(m).wrapping_sub(r);
    if d1 > d {
        return d1;
    }
    i64::MAX
}

// ---- template values ----------------------------------------------------------------

/// The `time.Time` value templates see.
#[derive(Clone, Debug)]
pub struct TimeValue(pub GoTime);

/// A `time.Duration` (from `.Sub`).
#[derive(Clone, Debug)]
pub struct DurationValue(pub i64);

/// `time.Month` and `time.Weekday`: integers that print as names.
#[derive(Clone, Debug)]
pub struct NamedInt {
    type_name: &'static str,
    value: i64,
    name: &'static str,
}

/// A `*time.Location`.
#[derive(Clone, Debug)]
pub struct LocationValue(pub Loc);

pub fn time_value(t: GoTime) -> Value {
    Value::Object(Arc::new(TimeValue(t)))
}

/// A `time.Duration` value.
pub fn duration_value(d: i64) -> Value {
    Value::Object(Arc::new(DurationValue(d)))
}

/// The `time.Time` inside a value, if it is one.
pub fn as_time(v: &Value) -> Option<GoTime> {
    match v {
        Value::Object(o) => o.as_any().downcast_ref::<TimeValue>().map(|t| t.0.clone()),
        _ => None,
    }
}

fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i, _) => Some(*i),
        Value::Uint(u, _) => i64::try_from(*u).ok(),
        Value::Object(o) => o.as_any().downcast_ref::<DurationValue>().map(|d| d.0),
        _ => None,
    }
}

fn wrong_arg(method: &str, want: &str, got: &Value) -> String {
    format!(
        "wrong type for value; expected {want}; got {} (calling {method})",
        got.type_name()
    )
}

impl Object for TimeValue {
    fn type_name(&self) -> String {
        "time.Time".to_string()
    }

    /// Go's `==` on `time.Time` compares the instant, the monotonic reading and
    /// the location pointer; UTC and Local are single locations, and a fixed zone
    /// or a loaded one is told apart here by its name and offset.
    fn comparable_key(&self) -> Option<String> {
        let t = &self.0;
        let loc = match &t.loc {
            Loc::Utc => "UTC".to_string(),
            Loc::Local => "Local".to_string(),
            Loc::Fixed { name, offset } => format!("fixed {name} {offset}"),
            Loc::Tz(tz) => format!("tz {}", tz.name()),
        };
        Some(format!("{} {} {:?} {loc}", t.unix, t.nsec, t.mono))
    }

    fn kind(&self) -> Kind {
        Kind::Struct
    }

    fn has_method(&self, name: &str) -> bool {
        matches!(
            name,
            "Year"
                | "Month"
                | "Day"
                | "Hour"
                | "Minute"
                | "Second"
                | "Nanosecond"
                | "YearDay"
                | "Weekday"
                | "Unix"
                | "UnixMilli"
                | "UnixMicro"
                | "UnixNano"
                | "Format"
                | "String"
                | "UTC"
                | "Local"
                | "Location"
                | "Add"
                | "AddDate"
                | "Sub"
                | "Before"
                | "After"
                | "Equal"
                | "Compare"
                | "IsZero"
                | "Round"
                | "Truncate"
        )
    }

    /// Go checks a method call's arguments as a function's (count, then types,
    /// each at its argument) before the method runs.
    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        if !self.has_method(name) {
            return None;
        }
        Some(match name {
            "Format" => &[Ty::String],
            "Add" | "Round" | "Truncate" => &[Ty::Duration],
            "AddDate" => &[Ty::Int, Ty::Int, Ty::Int],
            "Sub" | "Before" | "After" | "Equal" | "Compare" => &[Ty::Time],
            _ => &[],
        })
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        let t = &self.0;
        let f = t.fields();
        // The engine checks the count against `method_params` before calling; a
        // direct caller gets Go's words too, rather than an index out of range.
        if let Some(params) = self.method_params(name) {
            if args.len() != params.len() {
                return Err(format!(
                    "wrong number of args for {name}: want {} got {}",
                    params.len(),
                    args.len()
                ));
            }
        }
        let other_time = |i: usize| -> Result<GoTime, String> {
            as_time(&args[i]).ok_or_else(|| wrong_arg(name, "time.Time", &args[i]))
        };
        let dur = |i: usize| -> Result<i64, String> {
            int_of(&args[i]).ok_or_else(|| wrong_arg(name, "time.Duration", &args[i]))
        };
        let total = t.nanos_total();
        Ok(match name {
            "Year" => Value::int(f.year),
            "Month" => Value::object(NamedInt {
                type_name: "time.Month",
                value: f.month,
                name: LONG_MONTHS[(f.month - 1) as usize],
            }),
            "Day" => Value::int(f.day),
            "Hour" => Value::int(f.hour),
            "Minute" => Value::int(f.min),
            "Second" => Value::int(f.sec),
            "Nanosecond" => Value::int(i64::from(t.nsec)),
            "YearDay" => Value::int(f.yday),
            "Weekday" => Value::object(NamedInt {
                type_name: "time.Weekday",
                value: f.weekday,
                name: LONG_DAYS[f.weekday as usize],
            }),
            "Unix" => Value::int64(t.unix),
            "UnixMilli" => Value::int64(total.div_euclid(1_000_000) as i64),
            "UnixMicro" => Value::int64(total.div_euclid(1_000) as i64),
            "UnixNano" => Value::int64(total as i64),
            "Format" => {
                let layout = args[0]
                    .as_str()
                    .ok_or_else(|| wrong_arg(name, "string", &args[0]))?;
                Value::from(t.format(layout))
            }
            "String" => Value::from(t.go_string()),
            "UTC" => time_value(t.in_loc(Loc::Utc)),
            "Local" => time_value(t.in_loc(Loc::Local)),
            "Location" => Value::object(LocationValue(t.loc.clone())),
            "Add" => time_value(t.add(dur(0)?)),
            "AddDate" => {
                let n = |i: usize| int_of(&args[i]).ok_or_else(|| wrong_arg(name, "int", &args[i]));
                let mut r = GoTime::date(
                    f.year.wrapping_add(n(0)?),
                    f.month.wrapping_add(n(1)?),
                    f.day.wrapping_add(n(2)?),
                    f.hour,
                    f.min,
                    f.sec,
                    i64::from(t.nsec),
                    t.loc.clone(),
                );
                r.mono = None;
                time_value(r)
            }
            "Sub" => duration_value(t.sub(&other_time(0)?)),
            "Before" => Value::Bool(t.sub(&other_time(0)?) < 0),
            "After" => Value::Bool(t.sub(&other_time(0)?) > 0),
            "Equal" => Value::Bool(t.sub(&other_time(0)?) == 0),
            "Compare" => Value::int(t.sub(&other_time(0)?).signum()),
            "IsZero" => Value::Bool(t.unix == ZERO_UNIX && t.nsec == 0),
            "Round" | "Truncate" => {
                let d = dur(0)?;
                let mut r = t.clone();
                r.mono = None;
                if d > 0 {
                    // Go rounds the absolute time since its zero time.
                    let since_zero = total - i128::from(ZERO_UNIX) * 1_000_000_000;
                    let rem = since_zero.rem_euclid(i128::from(d));
                    let delta = if name == "Round" && rem + rem >= i128::from(d) {
                        i128::from(d) - rem
                    } else {
                        -rem
                    };
                    r = GoTime::from_nanos_total(total + delta, t.loc.clone(), None);
                }
                time_value(r)
            }
            _ => return Err(format!("can't call method/function {name:?}")),
        })
    }

    fn fmt_v(&self, _plus: bool) -> String {
        self.0.go_string()
    }

    fn to_json_value(&self) -> Value {
        Value::from(self.0.format("2006-01-02T15:04:05.999999999Z07:00"))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Object for DurationValue {
    fn type_name(&self) -> String {
        "time.Duration".to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Int
    }

    fn has_method(&self, name: &str) -> bool {
        matches!(
            name,
            "String" | "Hours" | "Minutes" | "Seconds" | "Milliseconds" | "Nanoseconds"
        )
    }

    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        self.has_method(name).then_some(&[])
    }

    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value, String> {
        let d = self.0;
        let split = |unit: i64| (d / unit) as f64 + (d % unit) as f64 / unit as f64;
        Ok(match name {
            "String" => Value::from(format_duration(d)),
            "Hours" => Value::Float(split(HOUR as i64)),
            "Minutes" => Value::Float(split(MINUTE as i64)),
            "Seconds" => Value::Float(split(SECOND as i64)),
            "Milliseconds" => Value::int64(d / MILLISECOND as i64),
            "Nanoseconds" => Value::int64(d),
            _ => return Err(format!("can't call method/function {name:?}")),
        })
    }

    fn fmt_v(&self, _plus: bool) -> String {
        format_duration(self.0)
    }

    fn to_json_value(&self) -> Value {
        Value::int64(self.0)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Object for NamedInt {
    fn type_name(&self) -> String {
        self.type_name.to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Int
    }

    fn has_method(&self, name: &str) -> bool {
        name == "String"
    }

    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        self.has_method(name).then_some(&[])
    }

    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value, String> {
        match name {
            "String" => Ok(Value::from(self.name)),
            _ => Err(format!("can't call method/function {name:?}")),
        }
    }

    fn fmt_v(&self, _plus: bool) -> String {
        self.name.to_string()
    }

    fn to_json_value(&self) -> Value {
        Value::int(self.value)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Object for LocationValue {
    fn type_name(&self) -> String {
        "*time.Location".to_string()
    }

    fn has_method(&self, name: &str) -> bool {
        name == "String"
    }

    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        self.has_method(name).then_some(&[])
    }

    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value, String> {
        match name {
            "String" => Ok(Value::from(self.0.name())),
            _ => Err(format!("can't call method/function {name:?}")),
        }
    }

    fn fmt_v(&self, _plus: bool) -> String {
        self.0.name()
    }

    fn to_json_value(&self) -> Value {
        Value::empty_map()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

// ---- the functions ------------------------------------------------------------------

fn str_arg(args: &[Value], i: usize) -> &str {
    args.get(i).and_then(Value::as_str).unwrap_or("")
}

fn nil() -> &'static Value {
    static NIL: Value = Value::Nil;
    &NIL
}

/// The `time.Time` parameter of `dateModify` and `unixEpoch`. Their signatures
/// declare it ([`Ty::Time`]), so in templates the engine rejects other values
/// before the call, with Go's texts; this covers calls made directly.
fn time_arg(args: &[Value], i: usize) -> Result<GoTime, FuncError> {
    let v = args.get(i).unwrap_or(nil());
    as_time(v).ok_or_else(|| {
        FuncError::call(format!(
            "wrong type for value; expected time.Time; got {}",
            v.type_name()
        ))
    })
}

/// Sprig's `date interface{}` conventions: a `time.Time`, or Unix seconds as `int`,
/// `int32` or `int64`; anything else means now.
fn time_or_now(host: &Host, v: &Value, with_int32: bool) -> GoTime {
    if let Some(t) = as_time(v) {
        return t;
    }
    match v {
        Value::Int(i, IntType::Int | IntType::Int64) => GoTime::from_unix(*i, Loc::Local),
        Value::Int(i, IntType::Int32) if with_int32 => GoTime::from_unix(*i, Loc::Local),
        _ => GoTime::now(host),
    }
}

fn date_in_zone_impl(host: &Host, layout: &str, date: &Value, zone: &str) -> String {
    let t = time_or_now(host, date, true);
    let loc = Loc::load(zone).unwrap_or(Loc::Utc);
    t.in_loc(loc).format(layout)
}

fn now(ctx: &mut CallCtx<'_>, _args: &[Value]) -> FuncResult {
    Ok(time_value(GoTime::now(ctx.host)))
}

fn date(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let d = args.get(1).unwrap_or(nil());
    Ok(Value::from(date_in_zone_impl(
        ctx.host,
        str_arg(args, 0),
        d,
        "Local",
    )))
}

fn date_in_zone(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let d = args.get(1).unwrap_or(nil());
    Ok(Value::from(date_in_zone_impl(
        ctx.host,
        str_arg(args, 0),
        d,
        str_arg(args, 2),
    )))
}

fn html_date(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let d = args.first().unwrap_or(nil());
    Ok(Value::from(date_in_zone_impl(
        ctx.host,
        "2006-01-02",
        d,
        "Local",
    )))
}

fn html_date_in_zone(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let d = args.first().unwrap_or(nil());
    Ok(Value::from(date_in_zone_impl(
        ctx.host,
        "2006-01-02",
        d,
        str_arg(args, 1),
    )))
}

fn date_modify(args: &[Value]) -> FuncResult {
    let t = time_arg(args, 1)?;
    Ok(time_value(match parse_duration(str_arg(args, 0)) {
        Ok(d) => t.add(d),
        Err(_) => t,
    }))
}

fn must_date_modify(args: &[Value]) -> FuncResult {
    let t = time_arg(args, 1)?;
    let d = parse_duration(str_arg(args, 0)).map_err(FuncError::call)?;
    Ok(time_value(t.add(d)))
}

fn to_date(args: &[Value]) -> FuncResult {
    Ok(time_value(
        parse_time(str_arg(args, 0), str_arg(args, 1)).unwrap_or_else(|_| GoTime::zero()),
    ))
}

fn must_to_date(args: &[Value]) -> FuncResult {
    parse_time(str_arg(args, 0), str_arg(args, 1))
        .map(time_value)
        .map_err(|e| FuncError::call(e.text()))
}

fn unix_epoch(args: &[Value]) -> FuncResult {
    Ok(Value::from(time_arg(args, 0)?.unix().to_string()))
}

/// Go `strconv.ParseInt(s, 10, 64)` as Sprig uses it: errors give 0, except range
/// errors, which give the bound.
fn parse_int_lenient(s: &str) -> i64 {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit() || c == b'_') {
        return 0;
    }
    if digits.contains('_') {
        // Base 10 given explicitly: underscores are not allowed.
        return 0;
    }
    let mut v: i128 = 0;
    for c in digits.bytes() {
        v = v * 10 + i128::from(c - b'0');
        if v > i128::from(i64::MAX) + 1 {
            break;
        }
    }
    let v = if neg { -v } else { v };
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

fn duration(args: &[Value]) -> FuncResult {
    let n = match args.first() {
        Some(Value::String(s)) => parse_int_lenient(s),
        Some(Value::Int(i, IntType::Int64)) => *i,
        _ => 0,
    };
    Ok(Value::from(format_duration(n.wrapping_mul(SECOND as i64))))
}

fn duration_round(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let v = args.first().unwrap_or(nil());
    let d = if let Some(t) = as_time(v) {
        GoTime::now(ctx.host).sub(&t)
    } else {
        match v {
            Value::String(s) => parse_duration(s).unwrap_or(0),
            Value::Int(i, IntType::Int64) => *i,
            _ => 0,
        }
    };
    let u = d.unsigned_abs();
    let (year, month, day) = (HOUR * 24 * 365, HOUR * 24 * 30, HOUR * 24);
    let out = if u > year {
        format!("{}y", u / year)
    } else if u > month {
        format!("{}mo", u / month)
    } else if u > day {
        format!("{}d", u / day)
    } else if u > HOUR {
        format!("{}h", u / HOUR)
    } else if u > MINUTE {
        format!("{}m", u / MINUTE)
    } else if u > SECOND {
        format!("{}s", u / SECOND)
    } else {
        "0s".to_string()
    };
    Ok(Value::from(out))
}

fn ago(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let v = args.first().unwrap_or(nil());
    let t = time_or_now(ctx.host, v, false);
    let since = GoTime::now(ctx.host).sub(&t);
    Ok(Value::from(format_duration(round_duration(
        since,
        SECOND as i64,
    ))))
}

// ---- Helm 4 duration helpers ---------------------------------------------------------

/// Helm's `asDuration`: a `time.Duration`, a duration string, a number of seconds as a
/// string, an integer or a float.
fn as_duration(v: &Value) -> Result<i64, String> {
    const MAX_SECS: i64 = i64::MAX / 1_000_000_000;
    const MIN_SECS: i64 = i64::MIN / 1_000_000_000;
    let from_float = |f: f64| -> Result<i64, String> {
        if !f.is_finite() {
            return Err(format!(
                "invalid duration seconds: {}",
                crate::template::fmt::format_float(f, b'g', -1)
            ));
        }
        if f > i64::MAX as f64 / 1e9 || f < i64::MIN as f64 / 1e9 {
            return Err(format!(
                "duration seconds overflow: {}",
                crate::template::fmt::format_float(f, b'g', -1)
            ));
        }
        let nanos = f * 1e9;
        if nanos > i64::MAX as f64 || nanos < i64::MIN as f64 {
            return Err(format!(
                "duration nanoseconds overflow: {}",
                crate::template::fmt::format_float(nanos, b'g', -1)
            ));
        }
        Ok(nanos as i64)
    };
    match v {
        Value::Object(o) => match o.as_any().downcast_ref::<DurationValue>() {
            Some(d) => Ok(d.0),
            None => Err(format!("unsupported duration type {}", v.type_name())),
        },
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                return Err("empty duration".to_string());
            }
            if let Ok(d) = parse_duration(t) {
                return Ok(d);
            }
            match t.parse::<f64>() {
                Ok(f) => from_float(f),
                Err(_) => Err(format!(
                    "could not parse duration {}",
                    crate::template::fmt::quote(s)
                )),
            }
        }
        Value::Nil => Err("invalid duration".to_string()),
        Value::Int(i, _) => {
            if *i > MAX_SECS || *i < MIN_SECS {
                Err(format!("duration seconds overflow: {i}"))
            } else {
                Ok(i * 1_000_000_000)
            }
        }
        Value::Uint(u, _) => {
            if *u > MAX_SECS as u64 {
                Err(format!("duration seconds overflow: {u}"))
            } else {
                Ok(*u as i64 * 1_000_000_000)
            }
        }
        Value::Float(f) => from_float(*f),
        other => Err(format!("unsupported duration type {}", other.type_name())),
    }
}

fn first_duration(args: &[Value]) -> Option<i64> {
    as_duration(args.first().unwrap_or(nil())).ok()
}

/// Go's `Duration` to float conversions: whole units plus the remainder as a fraction.
fn in_units(d: i64, unit: i64) -> f64 {
    (d / unit) as f64 + (d % unit) as f64 / unit as f64
}

fn must_to_duration(args: &[Value]) -> FuncResult {
    as_duration(args.first().unwrap_or(nil()))
        .map(duration_value)
        .map_err(FuncError::call)
}

fn duration_seconds(args: &[Value]) -> FuncResult {
    Ok(Value::Float(
        first_duration(args).map_or(0.0, |d| in_units(d, SECOND as i64)),
    ))
}

fn duration_milliseconds(args: &[Value]) -> FuncResult {
    Ok(Value::int64(
        first_duration(args).map_or(0, |d| d / 1_000_000),
    ))
}

fn duration_microseconds(args: &[Value]) -> FuncResult {
    Ok(Value::int64(first_duration(args).map_or(0, |d| d / 1_000)))
}

fn duration_nanoseconds(args: &[Value]) -> FuncResult {
    Ok(Value::int64(first_duration(args).unwrap_or(0)))
}

fn duration_minutes(args: &[Value]) -> FuncResult {
    Ok(Value::Float(
        first_duration(args).map_or(0.0, |d| in_units(d, MINUTE as i64)),
    ))
}

fn duration_hours(args: &[Value]) -> FuncResult {
    Ok(Value::Float(
        first_duration(args).map_or(0.0, |d| in_units(d, HOUR as i64)),
    ))
}

fn duration_days(args: &[Value]) -> FuncResult {
    Ok(Value::Float(
        first_duration(args).map_or(0.0, |d| in_units(d, HOUR as i64) / 24.0),
    ))
}

fn duration_weeks(args: &[Value]) -> FuncResult {
    Ok(Value::Float(
        first_duration(args).map_or(0.0, |d| in_units(d, HOUR as i64) / 24.0 / 7.0),
    ))
}

/// `durationRoundTo` / `durationTruncateTo`: 0 for a bad value, the value unchanged
/// for a bad multiple.
fn round_or_truncate(args: &[Value], round: bool) -> FuncResult {
    let Some(d) = first_duration(args) else {
        return Ok(duration_value(0));
    };
    let Ok(m) = as_duration(args.get(1).unwrap_or(nil())) else {
        return Ok(duration_value(d));
    };
    Ok(duration_value(if round {
        round_duration(d, m)
    } else if m <= 0 {
        d
    } else {
        d - d % m
    }))
}

fn duration_round_to(args: &[Value]) -> FuncResult {
    round_or_truncate(args, true)
}

fn duration_truncate_to(args: &[Value]) -> FuncResult {
    round_or_truncate(args, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Host;

    use crate::funcs::testing::call as ctx_call;

    fn text(v: &Value) -> String {
        match v {
            Value::String(s) => s.to_string(),
            Value::Object(o) => o.fmt_v(false),
            other => format!("{other:?}"),
        }
    }

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    fn to_date_s(layout: &str, value: &str) -> String {
        text(&to_date(&[s(layout), s(value)]).unwrap())
    }

    fn must_err(layout: &str, value: &str) -> String {
        must_to_date(&[s(layout), s(value)])
            .err()
            .map(|e| e.message().to_string())
            .unwrap_or_default()
    }

    // Expected values in these tests were produced by helm v3.15.3 on a UTC machine.
    #[test]
    fn to_date_matches_go() {
        let cases = [
            ("2006-01-02", "2024-03-05", "2024-03-05 00:00:00 +0000 UTC"),
            ("2006-01-02", "nope", "0001-01-01 00:00:00 +0000 UTC"),
            (
                "2006-01-02 15:04:05.000 -0700 MST",
                "2024-03-05 10:11:12.345 +0530 IST",
                "2024-03-05 10:11:12.345 +0530 IST",
            ),
            (
                "2006-01-02 15:04:05 -0700",
                "2024-03-05 10:11:12 -0800",
                "2024-03-05 10:11:12 -0800 -0800",
            ),
            (
                "2006-01-02 15:04:05 MST",
                "2024-03-05 10:11:12 PST",
                "2024-03-05 10:11:12 +0000 PST",
            ),
            (
                "2006-01-02 15:04:05 MST",
                "2024-03-05 10:11:12 UTC",
                "2024-03-05 10:11:12 +0000 UTC",
            ),
            (
                "2006-01-02T15:04:05Z07:00",
                "2024-03-05T10:11:12Z",
                "2024-03-05 10:11:12 +0000 UTC",
            ),
            (
                "2006-01-02T15:04:05Z07:00",
                "2024-03-05T10:11:12.123456789+02:00",
                "2024-03-05 10:11:12.123456789 +0200 +0200",
            ),
            ("Jan 2 2006", "Feb 30 2024", "0001-01-01 00:00:00 +0000 UTC"),
            (
                "Jan _2 2006 3:04PM",
                "Mar  5 2024 1:02AM",
                "2024-03-05 01:02:00 +0000 UTC",
            ),
            (
                "Monday, January 2, 2006",
                "Tuesday, March 5, 2024",
                "2024-03-05 00:00:00 +0000 UTC",
            ),
            ("02/01/06", "05/03/24", "2024-03-05 00:00:00 +0000 UTC"),
            ("2006-002", "2024-065", "2024-03-05 00:00:00 +0000 UTC"),
            ("2006", "1", "0001-01-01 00:00:00 +0000 UTC"),
            ("06", "69", "1969-01-01 00:00:00 +0000 UTC"),
            ("06", "68", "2068-01-01 00:00:00 +0000 UTC"),
            (
                "2006-01-02 MST",
                "2024-03-05 CEST",
                "2024-03-05 00:00:00 +0000 CEST",
            ),
            (
                "2006-01-02 MST",
                "2024-03-05 GMT+3",
                "2024-03-05 03:00:00 +0300 GMT+3",
            ),
            (
                "2006-01-02 -07",
                "2024-03-05 +05",
                "2024-03-05 00:00:00 +0500 +0500",
            ),
            (
                "2006-01-02 Z07",
                "2024-03-05 Z",
                "2024-03-05 00:00:00 +0000 UTC",
            ),
            (
                "2006-01-02 15:04:05.999",
                "2024-03-05 10:11:12.5",
                "2024-03-05 10:11:12.5 +0000 UTC",
            ),
            (
                "2006-01-02 15:04:05",
                "2024-03-05 10:11:12.5",
                "2024-03-05 10:11:12.5 +0000 UTC",
            ),
            (
                "2006-01-02 15:04:05",
                "2024-03-05 10:11:12,5",
                "2024-03-05 10:11:12.5 +0000 UTC",
            ),
            ("3PM", "3AM", "0000-01-01 03:00:00 +0000 UTC"),
            ("3pm", "12am", "0000-01-01 00:00:00 +0000 UTC"),
        ];
        for (layout, value, want) in cases {
            assert_eq!(
                to_date_s(layout, value),
                want,
                "toDate {layout:?} {value:?}"
            );
        }
    }

    #[test]
    fn parse_errors_match_go() {
        let cases = [
            (
                "2006-01-02",
                "2024-13-05",
                r#"parsing time "2024-13-05": month out of range"#,
            ),
            (
                "2006-01-02",
                "x2024-03-05",
                r#"parsing time "x2024-03-05" as "2006-01-02": cannot parse "x2024-03-05" as "2006""#,
            ),
            (
                "2006-01-02",
                "2024-03-05x",
                r#"parsing time "2024-03-05x": extra text: "x""#,
            ),
            (
                "2006-01-02",
                "2024-3-05",
                r#"parsing time "2024-3-05" as "2006-01-02": cannot parse "3-05" as "01""#,
            ),
            (
                "2006-01-02",
                "2024-02-30",
                r#"parsing time "2024-02-30": day out of range"#,
            ),
            (
                "15:04",
                "25:00",
                r#"parsing time "25:00": hour out of range"#,
            ),
            (
                "2006-01-02",
                "",
                r#"parsing time "" as "2006-01-02": cannot parse "" as "2006""#,
            ),
            (
                "Mon Jan 2",
                "Foo Mar 5",
                r#"parsing time "Foo Mar 5" as "Mon Jan 2": cannot parse "Foo Mar 5" as "Mon""#,
            ),
            (
                "2006-01-02T15:04:05Z07:00",
                "2024-03-05T10:11:12+0200",
                r#"parsing time "2024-03-05T10:11:12+0200" as "2006-01-02T15:04:05Z07:00": cannot parse "+0200" as "Z07:00""#,
            ),
        ];
        for (layout, value, want) in cases {
            assert_eq!(must_err(layout, value), want, "{layout:?} {value:?}");
        }
    }

    #[test]
    fn formatting_matches_go() {
        let t = parse_time(
            "2006-01-02T15:04:05.999999999Z07:00",
            "2024-03-05T13:04:05.120000000+05:45",
        )
        .unwrap();
        let host = Host::new(0);
        let layout = "2006-01-02 15:04:05.000000 Mon Monday Jan January 1 01 2 02 _2 3 03 15 4 04 5 05 06 2006 PM pm MST -0700 -07:00 -07 Z0700 Z07:00 .999 .000 ,000 002 __2";
        let out = ctx_call(&host, date, &[s(layout), time_value(t)]).unwrap();
        assert_eq!(
            text(&out),
            "2024-03-05 07:19:05.120000 Tue Tuesday Mar March 3 03 5 05  5 7 07 07 19 19 5 05 24 2024 AM am UTC +0000 +00:00 +00 Z Z .12 .120 ,120 065  65"
        );
        let jan5 = time_value(parse_time("2006-01-02", "2024-01-05").unwrap());
        let jul5 = time_value(parse_time("2006-01-02", "2024-07-05").unwrap());
        let fmt = "2006-01-02 15:04:05 MST -07:00";
        let zone = |t: &Value, z: &str| {
            text(&ctx_call(&host, date_in_zone, &[s(fmt), t.clone(), s(z)]).unwrap())
        };
        assert_eq!(
            zone(&jul5, "America/New_York"),
            "2024-07-04 20:00:00 EDT -04:00"
        );
        assert_eq!(
            zone(&jan5, "America/New_York"),
            "2024-01-04 19:00:00 EST -05:00"
        );
        assert_eq!(
            zone(&jan5, "Asia/Kolkata"),
            "2024-01-05 05:30:00 IST +05:30"
        );
        assert_eq!(zone(&jan5, "Nowhere/Bad"), "2024-01-05 00:00:00 UTC +00:00");
        assert_eq!(zone(&jan5, ""), "2024-01-05 00:00:00 UTC +00:00");
        assert_eq!(zone(&jan5, "Local"), "2024-01-05 00:00:00 UTC +00:00");
        assert_eq!(
            text(
                &ctx_call(
                    &host,
                    date_in_zone,
                    &[
                        s("2006-01-02 15:04 MST"),
                        Value::int(86400),
                        s("Europe/Paris")
                    ]
                )
                .unwrap()
            ),
            "1970-01-02 01:00 CET"
        );
        assert_eq!(
            text(
                &ctx_call(
                    &host,
                    date_in_zone,
                    &[s("15:04 MST"), Value::int(0), s("Local")]
                )
                .unwrap()
            ),
            "00:00 UTC"
        );
        let f = "2006-01-02 15:04:05 MST";
        let unix = |v: Value| text(&ctx_call(&host, date_in_zone, &[s(f), v, s("UTC")]).unwrap());
        assert_eq!(unix(Value::int(0)), "1970-01-01 00:00:00 UTC");
        assert_eq!(unix(Value::int64(1_700_000_000)), "2023-11-14 22:13:20 UTC");
        assert_eq!(
            text(
                &ctx_call(
                    &host,
                    html_date_in_zone,
                    &[Value::int(86400), s("Pacific/Kiritimati")]
                )
                .unwrap()
            ),
            "1970-01-01"
        );
        assert_eq!(
            text(&ctx_call(&host, html_date, &[Value::int(86400)]).unwrap()),
            "1970-01-02"
        );
        // Anything that is not a time or an int means now (the host clock).
        assert_eq!(
            text(&ctx_call(&host, date, &[s("2006-01-02"), s("notadate")]).unwrap()),
            "2024-01-01"
        );
        assert_eq!(
            text(&to_date(&[s("2006-01-02"), s("2024-03-05")]).unwrap()).len(),
            29
        );
        assert_eq!(
            unix_epoch(&[to_date(&[s("2006-01-02"), s("2024-03-05")]).unwrap()])
                .ok()
                .map(|v| text(&v)),
            Some("1709596800".to_string())
        );
        assert_eq!(
            unix_epoch(&[to_date(&[s("2006"), s("1")]).unwrap()])
                .ok()
                .map(|v| text(&v)),
            Some("-62135596800".to_string())
        );
    }

    #[test]
    fn date_modify_matches_go() {
        let base = to_date(&[s("2006-01-02"), s("2024-03-05")]).unwrap();
        let m = |d: &str| text(&date_modify(&[s(d), base.clone()]).unwrap());
        assert_eq!(m("1h30m"), "2024-03-05 01:30:00 +0000 UTC");
        assert_eq!(m("-1.5h"), "2024-03-04 22:30:00 +0000 UTC");
        assert_eq!(m("bad"), "2024-03-05 00:00:00 +0000 UTC");
        assert_eq!(m("24h"), "2024-03-06 00:00:00 +0000 UTC");
        assert_eq!(m("1.000000001s"), "2024-03-05 00:00:01.000000001 +0000 UTC");
        let mm = |d: &str| match must_date_modify(&[s(d), base.clone()]) {
            Ok(v) => text(&v),
            Err(e) => e.message().to_string(),
        };
        assert_eq!(mm("bad"), r#"time: invalid duration "bad""#);
        assert_eq!(mm("1x"), r#"time: unknown unit "x" in duration "1x""#);
        assert_eq!(mm("1"), r#"time: missing unit in duration "1""#);
        assert_eq!(mm(""), r#"time: invalid duration """#);
        assert_eq!(mm("1µs"), "2024-03-05 00:00:00.000001 +0000 UTC");
        assert_eq!(mm("2h"), "2024-03-05 02:00:00 +0000 UTC");
        assert_eq!(
            date_modify(&[s("1h"), s("x")])
                .err()
                .map(|e| e.message().to_string()),
            Some("wrong type for value; expected time.Time; got string".to_string())
        );
    }

    #[test]
    fn durations_match_go() {
        let d = |v: Value| text(&duration(&[v]).unwrap());
        assert_eq!(d(Value::int(3661)), "0s");
        assert_eq!(d(Value::int64(3661)), "1h1m1s");
        assert_eq!(d(s("3661")), "1h1m1s");
        assert_eq!(d(s("95.5")), "0s");
        assert_eq!(d(s("-90")), "-1m30s");
        assert_eq!(d(Value::int64(0)), "0s");
        assert_eq!(d(Value::int64(86_400_000)), "24000h0m0s");
        assert_eq!(d(Value::Float(1.5)), "0s");
        let host = Host::new(0);
        let r = |v: Value| text(&ctx_call(&host, duration_round, &[v]).unwrap());
        assert_eq!(r(s("2h30m")), "2h");
        assert_eq!(r(Value::int64(3_600_000_000_001)), "1h");
        assert_eq!(r(s("-5m1s")), "5m");
        assert_eq!(r(s("400d")), "0s");
        assert_eq!(r(s("9000h")), "1y");
        assert_eq!(r(s("1s")), "0s");
        assert_eq!(r(s("1.5s")), "1s");
        assert_eq!(r(Value::int(1000)), "0s");
        assert_eq!(r(s("bad")), "0s");
        for (ns, want) in [
            (1, "1ns"),
            (1500, "1.5µs"),
            (1_500_000, "1.5ms"),
            (3_600_000_000_000, "1h0m0s"),
            (-1_000_000_001, "-1.000000001s"),
            (i64::MIN, "-2562047h47m16.854775808s"),
        ] {
            assert_eq!(format_duration(ns), want);
        }
    }

    #[test]
    fn now_and_ago_use_the_host_clock() {
        let host = Host::new(0);
        let n = ctx_call(&host, now, &[]).unwrap();
        assert_eq!(text(&n), "2024-01-01 00:00:00 +0000 UTC m=+0.050000000");
        let later = date_modify(&[s("1h"), n.clone()]).unwrap();
        assert_eq!(
            text(&later),
            "2024-01-01 01:00:00 +0000 UTC m=+3600.050000000"
        );
        let base = to_date(&[s("2006-01-02"), s("2023-12-31")]).unwrap();
        assert_eq!(
            text(&ctx_call(&host, ago, std::slice::from_ref(&base)).unwrap()),
            "24h0m0s"
        );
        assert_eq!(text(&ctx_call(&host, ago, &[n]).unwrap()), "0s");
        assert_eq!(
            text(&ctx_call(&host, duration_round, &[base]).unwrap()),
            "24h"
        );
        assert_eq!(
            text(&ctx_call(&host, ago, &[Value::int(0)]).unwrap()),
            "473352h0m0s"
        );
    }

    #[test]
    fn time_values_behave_like_go() {
        let v = to_date(&[s("2006-01-02"), s("2024-03-05")]).unwrap();
        let Value::Object(o) = &v else { panic!() };
        let call = |m: &str, args: &[Value]| {
            o.call_method(m, args)
                .map(|r| text(&r))
                .unwrap_or_else(|e| e)
        };
        assert_eq!(call("Month", &[]), "March");
        assert_eq!(call("Weekday", &[]), "Tuesday");
        assert_eq!(call("Format", &[s("Jan")]), "Mar");
        assert_eq!(call("UTC", &[]), "2024-03-05 00:00:00 +0000 UTC");
        assert_eq!(call("Location", &[]), "Local");
        assert_eq!(
            call("Add", &[Value::int(1000)]),
            "2024-03-05 00:00:00.000001 +0000 UTC"
        );
        assert_eq!(
            call("AddDate", &[Value::int(0), Value::int(1), Value::int(0)]),
            "2024-04-05 00:00:00 +0000 UTC"
        );
        let jan = to_date(&[s("2006-01-02"), s("2024-01-05")]).unwrap();
        assert_eq!(call("Sub", &[jan]), "1440h0m0s");
        assert_eq!(o.type_name(), "time.Time");
        assert_eq!(v.kind_name(), "struct");
        assert_eq!(text(&o.to_json_value()), "2024-03-05T00:00:00Z");
        let half = to_date(&[
            s("2006-01-02T15:04:05Z07:00"),
            s("2024-03-05T10:11:12.5+02:00"),
        ])
        .unwrap();
        let Value::Object(h) = &half else { panic!() };
        assert_eq!(text(&h.to_json_value()), "2024-03-05T10:11:12.5+02:00");
    }

    #[test]
    fn absurd_instants_do_not_panic() {
        let host = Host::new(0);
        for v in [i64::MAX, i64::MIN, i64::MAX - 1] {
            let out = ctx_call(
                &host,
                date_in_zone,
                &[s("2006-01-02 MST"), Value::int64(v), s("Asia/Kolkata")],
            );
            assert!(out.is_ok());
        }
        let t = to_date(&[s("2006-01-02"), s("2024-03-05")]).unwrap();
        let Value::Object(o) = &t else { panic!() };
        let big = Value::int(i64::MAX);
        assert!(o
            .call_method("AddDate", &[big.clone(), big.clone(), big])
            .is_ok());
    }

    #[test]
    fn zone_abbreviations_match_go_zoneinfo() {
        // helm v3.15.3 on Debian's zoneinfo.
        let cases: &[(&str, i64, &str, &str)] = &[
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Europe/London",
                "2024-07-03 10:46:40 BST +01:00",
            ),
            ("MST -07:00", 1700000000, "Europe/London", "GMT +00:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Asia/Tokyo",
                "2024-07-03 18:46:40 JST +09:00",
            ),
            ("MST -07:00", 1700000000, "Asia/Tokyo", "JST +09:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Australia/Sydney",
                "2024-07-03 19:46:40 AEST +10:00",
            ),
            ("MST -07:00", 1700000000, "Australia/Sydney", "AEDT +11:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "America/Sao_Paulo",
                "2024-07-03 06:46:40 -03 -03:00",
            ),
            ("MST -07:00", 1700000000, "America/Sao_Paulo", "-03 -03:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Asia/Shanghai",
                "2024-07-03 17:46:40 CST +08:00",
            ),
            ("MST -07:00", 1700000000, "Asia/Shanghai", "CST +08:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "America/Los_Angeles",
                "2024-07-03 02:46:40 PDT -07:00",
            ),
            (
                "MST -07:00",
                1700000000,
                "America/Los_Angeles",
                "PST -08:00",
            ),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Asia/Singapore",
                "2024-07-03 17:46:40 +08 +08:00",
            ),
            ("MST -07:00", 1700000000, "Asia/Singapore", "+08 +08:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Africa/Johannesburg",
                "2024-07-03 11:46:40 SAST +02:00",
            ),
            (
                "MST -07:00",
                1700000000,
                "Africa/Johannesburg",
                "SAST +02:00",
            ),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Asia/Kathmandu",
                "2024-07-03 15:31:40 +0545 +05:45",
            ),
            ("MST -07:00", 1700000000, "Asia/Kathmandu", "+0545 +05:45"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "America/St_Johns",
                "2024-07-03 07:16:40 NDT -02:30",
            ),
            ("MST -07:00", 1700000000, "America/St_Johns", "NST -03:30"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Etc/GMT+3",
                "2024-07-03 06:46:40 -03 -03:00",
            ),
            ("MST -07:00", 1700000000, "Etc/GMT+3", "-03 -03:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "EST5EDT",
                "2024-07-03 05:46:40 EDT -04:00",
            ),
            ("MST -07:00", 1700000000, "EST5EDT", "EST -05:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "US/Eastern",
                "2024-07-03 05:46:40 EDT -04:00",
            ),
            ("MST -07:00", 1700000000, "US/Eastern", "EST -05:00"),
            (
                "2006-01-02 15:04:05 MST -07:00",
                1720000000,
                "Zulu",
                "2024-07-03 09:46:40 UTC +00:00",
            ),
            ("MST -07:00", 1700000000, "Zulu", "UTC +00:00"),
        ];
        let host = Host::new(0);
        for (layout, unix, zone, want) in cases {
            let out = ctx_call(
                &host,
                date_in_zone,
                &[s(layout), Value::int64(*unix), s(zone)],
            )
            .unwrap();
            assert_eq!(&text(&out), want, "{zone} at {unix}");
        }
    }

    #[test]
    fn helm4_duration_helpers_match_helm() {
        let one = |f: fn(&[Value]) -> FuncResult, v: Value| text(&f(&[v]).unwrap());
        // Go's %v of the result, as the template prints it.
        let v = |r: FuncResult| crate::template::fmt::format_value(&r.unwrap());
        // helm v4.3.1 outputs.
        assert_eq!(v(duration_seconds(&[s("1m")])), "60");
        assert_eq!(one(must_to_duration, s("90")), "1m30s");
        assert_eq!(
            text(&duration_round_to(&[s("2h13m"), s("30m")]).unwrap()),
            "2h0m0s"
        );
        assert_eq!(v(duration_hours(&[Value::int(7200)])), "2");
        let d = must_to_duration(&[s("1m")]).unwrap();
        assert_eq!(d.type_name(), "time.Duration");
        assert_eq!(
            must_to_duration(&[s("nope")])
                .err()
                .map(|e| e.message().to_string()),
            Some(r#"could not parse duration "nope""#.to_string())
        );
        assert_eq!(
            must_to_duration(&[Value::Nil])
                .err()
                .map(|e| e.message().to_string()),
            Some("invalid duration".to_string())
        );
        assert_eq!(one(must_to_duration, Value::Float(2.5)), "2.5s");
        assert_eq!(
            text(&duration_truncate_to(&[s("2h13m"), s("30m")]).unwrap()),
            "2h0m0s"
        );
        assert_eq!(
            text(&duration_truncate_to(&[s("2h13m"), s("bad")]).unwrap()),
            "2h13m0s"
        );
        assert_eq!(v(duration_milliseconds(&[s("1.5s")])), "1500");
        assert_eq!(v(duration_seconds(&[s("1.5")])), "1.5");
        assert_eq!(v(duration_days(&[s("36h")])), "1.5");
        assert_eq!(v(duration_weeks(&[s("84h")])), "0.5");
        assert_eq!(v(duration_microseconds(&[s("1ms")])), "1000");
        assert_eq!(v(duration_nanoseconds(&[Value::int(2)])), "2000000000");
        assert_eq!(v(duration_minutes(&[s("90s")])), "1.5");
        assert_eq!(one(must_to_duration, s(" 2m ")), "2m0s");
        assert_eq!(
            v(duration_seconds(&[Value::list(vec![Value::int(1)])])),
            "0"
        );
        assert_eq!(v(duration_seconds(&[Value::Nil])), "0");
        assert_eq!(v(duration_round_to(&[s("2h15m"), s("30m")])), "2h30m0s");
        assert_eq!(v(duration_round_to(&[s("bad"), s("30m")])), "0s");
        let err = |x: Value| {
            must_to_duration(&[x])
                .err()
                .map(|e| e.message().to_string())
                .unwrap_or_default()
        };
        assert_eq!(err(s("")), "empty duration");
        assert_eq!(err(Value::Bool(true)), "unsupported duration type bool");
        assert_eq!(err(s("inf")), "invalid duration seconds: +Inf");
        assert_eq!(
            err(Value::Float(1e300)),
            "duration seconds overflow: 1e+300"
        );
    }

    #[test]
    fn calendar_round_trips() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
