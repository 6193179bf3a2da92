import Foundation
import GRDB
import OpenCombine
@testable import ReactiveGRDB
import SQLiteCommandLine
import XCTest

/// Files that other machines write: the file-system table, and the checks
/// at an interval that `includingOtherProcesses(.fileEvents)` adds on a real
/// FUSE mount (bindfs), written behind the mount as another machine would.
final class RemoteFileSystemTests: XCTestCase {
    private let names = ValueObservation
        .trackingConstantRegion { db in try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") }
        .removeDuplicates()

    private var directory: URL!
    private var mount: FuseMount?

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("RemoteFileSystemTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        CommitWatch.makeFileChangeSource = { directory, names, queue, onChange in
            try FileChangeSource(directory: directory, names: names, queue: queue, onChange: onChange)
        }
        mount?.unmount()
        try? FileManager.default.removeItem(at: directory)
        try super.tearDownWithError()
    }

    // MARK: - The table

    func testFileSystemTypesAreToldByTheirMagicNumber() {
        let expected: [UInt32: String] = [
            0x6969: "network file system (nfs)",
            0x517B: "network file system (smb)",
            0xFF53_4D42: "network file system (cifs)",
            0xFE53_4D42: "network file system (smb2)",
            0x5346_414F: "network file system (afs)",
            0x6573_5546: "FUSE file system (fuse)",
            0x0102_1997: "virtual machine share (9p)",
            0x00C3_6400: "cluster file system (ceph)",
            0x0BD0_0BD0: "cluster file system (lustre)",
            0x0116_1970: "cluster file system (gfs2)",
            0x7461_636F: "cluster file system (ocfs2)",
        ]
        for (magic, description) in expected {
            XCTAssertEqual(RemoteFileSystem(magic: magic)?.description, description, String(magic, radix: 16))
        }
        // Local file systems: ext4, tmpfs, btrfs, xfs, overlayfs, zfs, f2fs.
        for magic: UInt32 in [0xEF53, 0x0102_1994, 0x9123_683E, 0x5846_5342, 0x794C_7630, 0x2FC1_2FC1, 0xF2F5_2010] {
            XCTAssertNil(RemoteFileSystem(magic: magic), String(magic, radix: 16))
        }
        XCTAssertEqual(Set(RemoteFileSystem.all.map(\.magic)).count, RemoteFileSystem.all.count, "one entry per type")
        XCTAssertEqual(Set(RemoteFileSystem.all.map(\.name)).count, RemoteFileSystem.all.count, "one name per type")
    }

    func testFileSystemOfAFileIsReadWithStatfs() throws {
        let mount = try makeMount()
        let file = mount.mountPoint.appendingPathComponent("file")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil))
        XCTAssertEqual(RemoteFileSystem(containingFileAt: file.path)?.name, "fuse")
        XCTAssertEqual(RemoteFileSystem(containingFileAt: mount.mountPoint.path)?.name, "fuse")
        // The same file, seen from the other side of the mount.
        XCTAssertNil(RemoteFileSystem(containingFileAt: mount.source.appendingPathComponent("file").path))
        XCTAssertNil(RemoteFileSystem(containingFileAt: directory.appendingPathComponent("missing").path))
    }

    // MARK: - On a FUSE mount

    func testCommitsBehindAFuseMountAreSeenAndThePollingIsReported() throws {
        let mount = try makeMount()
        // WAL needs shared memory, which a network file system does not
        // provide (nor this mount, with direct_io): rollback journal only.
        let other = try SQLiteCommand(path: mount.source.appendingPathComponent("db.sqlite").path)
        defer { other.close() }
        try other.execute("CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        let path = mount.mountPoint.appendingPathComponent("db.sqlite").path
        for readOnly in [true, false] {
            var configuration = Configuration()
            configuration.readonly = readOnly
            let reader = try DatabaseQueue(path: path, configuration: configuration)
            try RecorderScope.run {
                let reasons = Synchronized<[String]>([])
                let recorder = names.publisher(in: reader)
                    .includingOtherProcesses(.fileEvents(onPollingFallback: { reason in reasons.update { $0.append(reason) } }))
                    .record()
                wait(for: recorder, valueCount: 1)
                wait(for: reasons, until: { $0 == ["FUSE file system (fuse)"] })
                // Behind the mount: no inotify event reaches its watcher.
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                wait(for: recorder, until: { $0.values == [[], ["Arthur"]] })
                try other.execute("UPDATE player SET name = 'Barbara'")
                wait(for: recorder, until: { $0.values == [[], ["Arthur"], ["Barbara"]] })
                try other.execute("DELETE FROM player")
                wait(for: recorder, until: { $0.values == [[], ["Arthur"], ["Barbara"], []] })
                recorder.cancel()
            }
            try reader.close()
        }
    }

    func testWALFileOnAFuseMountIsReportedAsUnseenFromOtherMachines() throws {
        // A mount that caches pages: SQLite opens a WAL file there, but its
        // -shm index is not the other side's.
        let mount = try FuseMount(in: directory, directIO: false)
        self.mount = mount
        let other = try SQLiteCommand(path: mount.source.appendingPathComponent("db.sqlite").path)
        defer { other.close() }
        try other.execute("""
            PRAGMA journal_mode = wal;
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            """)
        let path = mount.mountPoint.appendingPathComponent("db.sqlite").path
        let file = try XCTUnwrap(RemoteWALFile(path: path))
        XCTAssertEqual(file.fileSystem.name, "fuse")
        XCTAssertTrue(file.description.hasPrefix(
            "the database is in WAL mode on a FUSE file system (fuse), which does not share its -shm index"),
            file.description)
        // Neither the same file seen from its side, nor a rollback-journal file.
        XCTAssertNil(RemoteWALFile(path: mount.source.appendingPathComponent("db.sqlite").path))
        let journal = try SQLiteCommand(path: mount.source.appendingPathComponent("journal.sqlite").path)
        try journal.execute("CREATE TABLE t(x)")
        journal.close()
        XCTAssertNil(RemoteWALFile(path: mount.mountPoint.appendingPathComponent("journal.sqlite").path))

        var configuration = Configuration()
        configuration.readonly = true
        let reader = try DatabaseQueue(path: path, configuration: configuration)
        RecorderScope.run {
            let reasons = Synchronized<[String]>([])
            let recorder = names.publisher(in: reader)
                .includingOtherProcesses(.fileEvents(onPollingFallback: { reason in reasons.update { $0.append(reason) } }))
                .record()
            wait(for: recorder, valueCount: 1)
            wait(for: reasons, until: { $0 == [file.description] })
            recorder.cancel()
        }
        try reader.close()
    }

    // MARK: - Checks at an interval on any file system

    func testCheckingEveryIntervalSeesCommitsThatMakeNoFileEvent() throws {
        // A source that watches another directory: the writes to the
        // database make no event, as on a file system inotify can't see.
        let elsewhere = directory.appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        CommitWatch.makeFileChangeSource = { _, names, queue, onChange in
            try FileChangeSource(directory: elsewhere.path, names: names, queue: queue, onChange: onChange)
        }
        let (path, other) = try otherProcessDatabase(in: directory, """
            PRAGMA journal_mode = wal;
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            """)
        defer { other.close() }
        var configuration = Configuration()
        configuration.readonly = true
        let reader = try DatabasePool(path: path, configuration: configuration)
        try RecorderScope.run {
            let reasons = Synchronized<[String]>([])
            let recorder = names.publisher(in: reader)
                .includingOtherProcesses(.fileEvents(checkingEvery: 0.05, onPollingFallback: { reason in
                    reasons.update { $0.append(reason) }
                }))
                .record()
            wait(for: recorder, valueCount: 1)
            try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
            wait(for: recorder, until: { $0.values.last == ["Arthur"] })
            try other.execute("INSERT INTO player(name) VALUES ('Barbara')")
            wait(for: recorder, until: { $0.values.last == ["Arthur", "Barbara"] })
            // Asked for, on a local file: no fallback to report.
            XCTAssertEqual(reasons.value, [])
        }
    }

    // MARK: - Support

    private func makeMount() throws -> FuseMount {
        let mount = try FuseMount(in: directory)
        self.mount = mount
        return mount
    }
}
