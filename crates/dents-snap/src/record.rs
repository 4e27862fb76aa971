//! The scan's own record: what was scanned, when, how, by which dents,
//! and what went wrong, so that a reader knows what is missing.  It lives
//! in the Parquet file's key-value metadata (keys in [`crate::schema`]).

use crate::escape::{escape, unescape};
use crate::schema::*;

/// A time as seconds and nanoseconds since the epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Time {
    /// Whole seconds since 1970-01-01 00:00:00 UTC.
    pub secs: i64,
    /// Nanoseconds past `secs`.
    pub nsecs: u32,
}

impl Time {
    /// The current time.
    pub fn now() -> Time {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Time {
            secs: d.as_secs() as i64,
            nsecs: d.subsec_nanos(),
        }
    }

    fn to_text(self) -> String {
        format!("{}.{:09}", self.secs, self.nsecs)
    }

    fn from_text(s: &str) -> Option<Time> {
        let (a, b) = s.split_once('.')?;
        Some(Time {
            secs: a.parse().ok()?,
            nsecs: b.parse().ok()?,
        })
    }
}

/// The scan's record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanRecord {
    /// The roots as given (bytes), in the order scanned (sorted).
    pub roots: Vec<Vec<u8>>,
    /// When the scan started.
    pub start: Time,
    /// When it ended (the last entry written).
    pub end: Time,
    /// The options, as given on the command line (`-x -j 8`...).
    pub options: String,
    /// The version of dents that wrote it.
    pub dents_version: String,
    /// Errors met, as many as happened (messages kept: [`MAX_ERRORS`]).
    pub error_count: u64,
    /// The errors' messages (`PATH: CAUSE` or du-style words), bytes.
    pub errors: Vec<Vec<u8>>,
    /// A refresh: the old snapshot it started from, as given.
    pub since: Option<Vec<u8>>,
    /// Directories read.
    pub dirs_read: u64,
    /// Directories whose listing came from the old snapshot.
    pub dirs_reused: u64,
}

impl ScanRecord {
    /// Keeps one more error (its message only while fewer than
    /// [`MAX_ERRORS`] are kept).
    pub fn add_error(&mut self, message: Vec<u8>) {
        self.error_count += 1;
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(message);
        }
    }

    /// The record as key-value pairs, [`VERSION_KEY`] among them.
    pub fn to_pairs(&self) -> Vec<(String, String)> {
        let lines = |v: &[Vec<u8>]| v.iter().map(|b| escape(b)).collect::<Vec<_>>().join("\n");
        vec![
            (VERSION_KEY.into(), VERSION.to_string()),
            (ORDER_KEY.into(), ORDER.into()),
            (ROOTS_KEY.into(), lines(&self.roots)),
            (START_KEY.into(), self.start.to_text()),
            (END_KEY.into(), self.end.to_text()),
            (OPTIONS_KEY.into(), self.options.clone()),
            (DENTS_VERSION_KEY.into(), self.dents_version.clone()),
            (ERROR_COUNT_KEY.into(), self.error_count.to_string()),
            (ERRORS_KEY.into(), lines(&self.errors)),
            (
                SINCE_KEY.into(),
                self.since.as_deref().map(escape).unwrap_or_default(),
            ),
            (DIRS_READ_KEY.into(), self.dirs_read.to_string()),
            (DIRS_REUSED_KEY.into(), self.dirs_reused.to_string()),
        ]
    }

    /// The record from key-value pairs (after the version was checked);
    /// `Err(key)` names a key missing or malformed.
    pub fn from_pairs<'a>(
        get: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<ScanRecord, &'static str> {
        let lines = |key: &'static str| -> Result<Vec<Vec<u8>>, &'static str> {
            let v = get(key).ok_or(key)?;
            if v.is_empty() {
                return Ok(Vec::new());
            }
            v.split('\n').map(|l| unescape(l).ok_or(key)).collect()
        };
        let time = |key: &'static str| get(key).and_then(Time::from_text).ok_or(key);
        let count = |key: &'static str| -> Result<u64, &'static str> {
            get(key).map_or(Ok(0), |v| v.parse().map_err(|_| key))
        };
        Ok(ScanRecord {
            roots: lines(ROOTS_KEY)?,
            start: time(START_KEY)?,
            end: time(END_KEY)?,
            options: get(OPTIONS_KEY).ok_or(OPTIONS_KEY)?.to_string(),
            dents_version: get(DENTS_VERSION_KEY).ok_or(DENTS_VERSION_KEY)?.to_string(),
            error_count: get(ERROR_COUNT_KEY)
                .and_then(|v| v.parse().ok())
                .ok_or(ERROR_COUNT_KEY)?,
            errors: lines(ERRORS_KEY)?,
            // Added keys: absent from the first snapshots of version 1.
            since: match get(SINCE_KEY) {
                None | Some("") => None,
                Some(v) => Some(unescape(v).ok_or(SINCE_KEY)?),
            },
            dirs_read: count(DIRS_READ_KEY)?,
            dirs_reused: count(DIRS_REUSED_KEY)?,
        })
    }
}
