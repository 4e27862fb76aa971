//! [`FileType`]: an entry's type as the kernel gives it, in `getdents64`'s
//! `d_type` or in a stat's mode, one value for both.  Its own module, below
//! the directory reader and the metadata that both return one, so that
//! the type has one path, `dents::FileType`.

/// A file type as `getdents64` reports it in `d_type` (`DT_*` values).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileType(u8);

impl FileType {
    /// The filesystem did not say (`DT_UNKNOWN`): a stat is needed.
    pub const UNKNOWN: FileType = FileType(0);
    /// A named pipe (`DT_FIFO`).
    pub const FIFO: FileType = FileType(1);
    /// A character device (`DT_CHR`).
    pub const CHAR_DEVICE: FileType = FileType(2);
    /// A directory (`DT_DIR`).
    pub const DIRECTORY: FileType = FileType(4);
    /// A block device (`DT_BLK`).
    pub const BLOCK_DEVICE: FileType = FileType(6);
    /// A regular file (`DT_REG`).
    pub const REGULAR: FileType = FileType(8);
    /// A symbolic link (`DT_LNK`).
    pub const SYMLINK: FileType = FileType(10);
    /// A socket (`DT_SOCK`).
    pub const SOCKET: FileType = FileType(12);
    /// A whiteout (`DT_WHT`).
    pub const WHITEOUT: FileType = FileType(14);

    /// The type with the given `d_type` value.
    pub const fn from_dtype(d_type: u8) -> FileType {
        FileType(d_type)
    }

    /// The type encoded in the `S_IFMT` bits of a `st_mode`.
    pub const fn from_mode(mode: u32) -> FileType {
        // S_IFMT >> 12 is DT_* by construction of both encodings.
        FileType(((mode >> 12) & 0xF) as u8)
    }

    /// The raw `d_type` value.
    pub const fn as_dtype(self) -> u8 {
        self.0
    }

    /// Whether the filesystem left the type unknown.
    pub const fn is_unknown(self) -> bool {
        self.0 == 0
    }

    /// Whether this is a directory.
    pub const fn is_dir(self) -> bool {
        self.0 == 4
    }
}
