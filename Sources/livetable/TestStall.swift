import Foundation

#if DEBUG
/// The DEBUG stall hook of the terminal host (`Runtime`).
enum TestStall {
    /// A long job on the main thread, for the tests of what must act
    /// meanwhile (the signals that end the app): with
    /// `LIVETABLE_TEST_STALL_MARKER` set, the first key creates the file
    /// it names, then holds the main thread for ten minutes.
    static func stallIfAsked() {
        guard let marker = ProcessInfo.processInfo.environment["LIVETABLE_TEST_STALL_MARKER"] else { return }
        _ = FileManager.default.createFile(atPath: marker, contents: Data())
        sleep(600)
    }
}
#endif
