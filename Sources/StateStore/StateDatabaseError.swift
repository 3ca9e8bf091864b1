import SQLiteNIO

/// Why the state database cannot be used, in one line that names the file and what to do.
public struct StateDatabaseError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, underlying: any Error) {
        self.path = path
        guard let error = underlying as? SQLiteError else {
            reason = "cannot be used: \(underlying)"
            return
        }
        switch StateFault(error.reason) {
        case .notADatabase: reason = "is not an SQLite database"
        case .corrupt: reason = "is damaged (\(error.message))"
        case .cantOpen, .readOnly:
            reason = "cannot be opened for writing (\(error.message)): check the state directory's owner and mode"
        case .full: reason = "cannot be written: the disk is full"
        case .ioError, nil: reason = "cannot be used: \(error.message)"
        }
    }

    public var description: String {
        "state database \(path) \(reason). It is never replaced: move it aside to start with an empty state (owed tracker pings and rewards in it are then lost), or restore it from a backup"
    }
}

/// The faults of the disk or the file, by SQLite's primary result code (a code SQLite
/// extends, such as a failed fsync's, is its primary's): what makes an outage, not one
/// statement's own error.
enum StateFault {
    case full, ioError, readOnly, cantOpen, corrupt, notADatabase

    init?(_ reason: SQLiteError.Reason) {
        switch reason {
        case .full: self = .full
        case .readOnly, .readonlyInRecovery, .readonlyCantLock, .readonlyInRollback, .readonlyBackingMoved,
            .readonlyDirectory:
            self = .readOnly
        case .cantOpen, .cantOpenDirectory, .cantOpenInvalidPath, .cantOpenCygwinPath, .cantOpenUnfollowedSymlink:
            self = .cantOpen
        case .corrupt, .corruptVirtualTable, .corruptSequenceSchema, .corruptIndex: self = .corrupt
        case .notADatabase: self = .notADatabase
        case .ioError, .ioErrorFailedRead, .ioErrorIncompleteRead, .ioErrorFailedWrite, .ioErrorFailedSync,
            .ioErrorFailedDirSync, .ioErrorFailedTruncate, .ioErrorFailedStat, .ioErrorFailedUnlock,
            .ioErrorFailedReadLock, .ioErrorFailedDelete, .ioErrorNoMemory, .ioErrorFailedAccess,
            .ioErrorFailedLockCheck, .ioErrorFailedAdvisoryLock, .ioErrorFailedClose, .ioErrorFailedSharedMemOpen,
            .ioErrorFailedSharedMemSize, .ioErrorFailedSharedMemMap, .ioErrorFailedDeleteNonexistent,
            .ioErrorFailedMemoryMap, .ioErrorCantFindTempdir, .ioErrorCygwinPath, .ioErrorBadDataChecksum,
            .ioErrorCorruptedFilesystem:
            self = .ioError
        default: return nil
        }
    }
}
