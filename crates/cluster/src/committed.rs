//! The Raft log's committed id on disk.
//!
//! The committed id changes at nearly every commit, so it is not replaced by rename (three
//! syncs) but written in place, alternately into one of two slots, and synced once. A torn
//! write can only damage the slot being written; the other still holds the previous value,
//! and a stale committed id is safe (the state machine then re-applies a little less on
//! restart and catches up from the leader).
//!
//! ```text
//! committed file: two slots of SLOT_BYTES
//! offset  size  field
//! 0       8     sequence, u64 LE: the valid slot with the larger one is current
//! 8       8     present: 1, or 0 for no committed id
//! 16      8     term
//! 24      8     leader node id
//! 32      8     index
//! 40      4     CRC32C of bytes 0..40, u32 LE
//! 44      4     reserved, zero
//! ```

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::log_store::{LogCounters, LogError, Synced};
use crate::types::{LeaderId, LogId};

const COMMITTED_FILE: &str = "committed";

/// The open file and the sequence number of its current slot.
pub(crate) struct CommittedFile {
    file: File,
    path: PathBuf,
    seq: u64,
}

const SLOT_BYTES: usize = 48;
const SLOT_CRC_AT: usize = 40;

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

impl CommittedFile {
    pub(crate) fn open(dir: &Path) -> Result<(CommittedFile, Option<LogId>), LogError> {
        let path = dir.join(COMMITTED_FILE);
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| LogError::io(&path, e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| LogError::io(&path, e))?;
        let mut best: Option<(u64, Option<LogId>)> = None;
        for slot in bytes.chunks_exact(SLOT_BYTES).take(2) {
            let crc = u32::from_le_bytes([
                slot[SLOT_CRC_AT],
                slot[SLOT_CRC_AT + 1],
                slot[SLOT_CRC_AT + 2],
                slot[SLOT_CRC_AT + 3],
            ]);
            if crc32c::crc32c(&slot[..SLOT_CRC_AT]) != crc {
                continue;
            }
            let seq = u64_at(slot, 0);
            let id = (u64_at(slot, 8) == 1).then(|| {
                LogId::new(
                    LeaderId {
                        term: u64_at(slot, 16),
                        node_id: u64_at(slot, 24),
                    },
                    u64_at(slot, 32),
                )
            });
            if best.is_none_or(|(s, _)| seq > s) {
                best = Some((seq, id));
            }
        }
        let (seq, committed) = best.unwrap_or((0, None));
        Ok((CommittedFile { file, path, seq }, committed))
    }

    /// Writes `committed` into the older slot and syncs it (counted in `counters`).
    pub(crate) fn save(
        &mut self,
        committed: Option<LogId>,
        counters: &LogCounters,
    ) -> Result<(), LogError> {
        let seq = self.seq + 1;
        let mut slot = Vec::with_capacity(SLOT_BYTES);
        slot.extend_from_slice(&seq.to_le_bytes());
        let (present, term, node, index) = committed.map_or((0, 0, 0, 0), |c| {
            (1u64, c.leader_id.term, c.leader_id.node_id, c.index)
        });
        for v in [present, term, node, index] {
            slot.extend_from_slice(&v.to_le_bytes());
        }
        let crc = crc32c::crc32c(&slot);
        slot.extend_from_slice(&crc.to_le_bytes());
        slot.extend_from_slice(&0u32.to_le_bytes());
        debug_assert_eq!(slot.len(), SLOT_BYTES);
        let at = (seq % 2) * SLOT_BYTES as u64;
        (|| {
            self.file.seek(SeekFrom::Start(at))?;
            self.file.write_all(&slot)?;
            counters.sync(Synced::Committed, || self.file.sync_data())
        })()
        .map_err(|e| LogError::io(&self.path, e))?;
        self.seq = seq;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn the_committed_id_survives_a_torn_slot() {
        let dir = tempfile::tempdir().unwrap();
        let id = |i| {
            Some(LogId::new(
                LeaderId {
                    term: 2,
                    node_id: 3,
                },
                i,
            ))
        };
        let counters = LogCounters::default();
        {
            let (mut f, c) = CommittedFile::open(dir.path()).unwrap();
            assert_eq!(c, None);
            for i in 1..=5 {
                f.save(id(i), &counters).unwrap();
            }
        }
        assert_eq!(CommittedFile::open(dir.path()).unwrap().1, id(5));
        // Tear the newest slot (sequence 5 lives in slot 1): the one before it stands.
        let path = dir.path().join(COMMITTED_FILE);
        let mut bytes = fs::read(&path).unwrap();
        bytes[SLOT_BYTES + 33] ^= 0xff;
        fs::write(&path, &bytes).unwrap();
        let (mut f, c) = CommittedFile::open(dir.path()).unwrap();
        assert_eq!(c, id(4));
        f.save(None, &counters).unwrap();
        assert_eq!(CommittedFile::open(dir.path()).unwrap().1, None);
        assert_eq!(counters.stats().fsyncs[Synced::Committed as usize], 6);
    }
}
