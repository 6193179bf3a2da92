import Foundation
import XCTest

/// A tmux server of its own (`tmux -S <unique socket>`), running one shell
/// command in a detached window, so that tests see the real binary on a real
/// terminal, each in isolation.
///
/// The pane stays open after the command exits (`remain-on-exit`), so that
/// tests can read what the shell printed afterwards. No client is attached,
/// so there is no status bar: the pane is the whole window.
final class TmuxSession {
    /// The server's socket: a path of its own, removed with the server.
    let socket: String
    private let configuration: URL
    private(set) var isRunning = false

    /// Starts `command` (a `sh -c` script) in a `width` x `height` window.
    init(command: String, width: Int = 100, height: Int = 30, environment: [String: String] = [:]) throws {
        guard let tmux = Shell.which("tmux") else {
            throw HarnessError("tmux is not installed: the end-to-end tests need it (apt-get install tmux)")
        }
        self.tmux = tmux
        let name = "livetable-tmux-\(getpid())-\(UUID().uuidString.prefix(8))"
        socket = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).sock").path
        configuration = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).conf")
        try """
            set -g default-terminal screen-256color
            set -g remain-on-exit on
            set -s set-clipboard on
            """.write(to: configuration, atomically: true, encoding: .utf8)
        var environment = environment
        environment["LANG"] = environment["LANG"] ?? "C.UTF-8"
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(Shell.quote($0.value))" }
        let script = (["exec", "env"] + assignments + ["sh", "-c", Shell.quote(command)]).joined(separator: " ")
        try run(["-f", configuration.path, "new-session", "-d", "-s", "app",
                 "-x", "\(width)", "-y", "\(height)", script])
        isRunning = true
    }

    private let tmux: String

    deinit {
        kill()
    }

    /// Kills the tmux server and everything that runs in it.
    func kill() {
        guard isRunning else { return }
        isRunning = false
        _ = try? run(["kill-server"])
        // tmux leaves the socket file behind.
        unlink(socket)
        try? FileManager.default.removeItem(at: configuration)
    }

    // MARK: - Input

    /// Sends keys by tmux name: "Up", "PgDn", "Enter", "Escape", "C-c", "q"...
    func send(_ keys: String...) throws {
        try run(["send-keys", "-t", "app"] + keys)
    }

    /// Types `text` literally.
    func type(_ text: String) throws {
        try run(["send-keys", "-t", "app", "-l", text])
    }

    /// Pastes `text` as a terminal does: between bracketed-paste markers
    /// when the app asked for them.
    func paste(_ text: String) throws {
        try run(["set-buffer", "-b", "test", "--", text])
        try run(["paste-buffer", "-p", "-d", "-b", "test", "-t", "app"])
    }

    /// Resizes the window, which sends SIGWINCH to the app.
    func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", "app", "-x", "\(width)", "-y", "\(height)"])
    }

    // MARK: - Output

    /// tmux's newest paste buffer, which the app's clipboard escape (OSC
    /// 52) sets (`set-clipboard on`); nil while there is none.
    func pasteBuffer() throws -> String? {
        let result = try Shell.run(tmux, ["-S", socket, "show-buffer"])
        return result.status == 0 ? result.standardOutput : nil
    }

    /// The text of the pane, one line per row, trailing spaces removed.
    ///
    /// Lines that scrolled into the history come first (`-S -`): tmux may
    /// start the pane smaller than asked, and push the first lines of a
    /// quick command there. The app's alternate screen has no history.
    /// The line that tmux adds once the command has exited ("Pane is dead
    /// (status 0, …)") is left out.
    func screen() throws -> String {
        try run(["capture-pane", "-p", "-S", "-", "-t", "app"])
            .components(separatedBy: "\n")
            .filter { !$0.hasPrefix("Pane is dead (") }
            .joined(separator: "\n")
    }

    /// The SGR attribute codes that the pane's text is drawn with, as tmux
    /// reports them (`capture-pane -e`): "1" bold, "7" reverse, "33" yellow…
    /// tmux re-encodes what the app wrote, so these do not depend on how
    /// ncurses chose to write it.
    func attributeCodes() throws -> Set<String> {
        let text = try run(["capture-pane", "-p", "-e", "-t", "app"])
        var codes: Set<String> = []
        var rest = Substring(text)
        while let start = rest.range(of: "\u{1B}[") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(where: { !($0.isNumber || $0 == ";") }) else { break }
            if rest[end] == "m" {
                for code in rest[..<end].split(separator: ";") {
                    codes.insert(String(code))
                }
            }
            rest = rest[end...]
        }
        return codes
    }

    /// The pane's lines with the attributes of each character, as tmux
    /// reports them (`capture-pane -e`).
    func styledLines() throws -> [StyledLine] {
        try run(["capture-pane", "-p", "-e", "-t", "app"])
            .components(separatedBy: "\n")
            .map(StyledLine.init(parsing:))
    }

    /// Waits until the screen satisfies `condition`, polling, and returns
    /// it. Fails the test with the last screen on timeout: 10 s by
    /// default, a bound for a loaded machine (CI, two cores), not a figure
    /// of speed.
    @discardableResult
    func waitForScreen(
        _ description: String,
        timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line,
        until condition: (String) -> Bool) throws -> String
    {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = try self.screen()
        while !condition(screen) {
            if Date() > deadline {
                XCTFail("Timed out waiting for \(description). Screen:\n\(screen)", file: file, line: line)
                throw HarnessError("timed out waiting for \(description)")
            }
            usleep(20_000)
            screen = try self.screen()
        }
        return screen
    }

    /// Waits until the screen contains `text`.
    @discardableResult
    func waitForScreen(
        containing text: String,
        timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line) throws -> String
    {
        try waitForScreen("\"\(text)\"", timeout: timeout, file: file, line: line) { $0.contains(text) }
    }

    /// True when the pane is in keypad transmit mode (`smkx`, DECCKM):
    /// the terminal then sends the cursor keys as `ESC O A`…, as terminfo
    /// describes them for xterm and tmux, instead of `ESC [ A`….
    func isInKeypadMode() throws -> Bool {
        try run(["display-message", "-p", "-t", "app", "#{keypad_cursor_flag}"])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }

    /// True when the pane asked for mouse reports (1000) in SGR's
    /// encoding (1006), as tmux keeps track of its modes.
    func reportsMouse() throws -> Bool {
        try run(["display-message", "-p", "-t", "app", "#{mouse_standard_flag}#{mouse_sgr_flag}"])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "11"
    }

    /// True once the program rang the bell: no client being attached,
    /// tmux flags the window (`monitor-bell` is on by default).
    func hasRungBell() throws -> Bool {
        try run(["display-message", "-p", "-t", "app", "#{window_bell_flag}"])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }

    // MARK: - Processes

    /// The pid of the shell that runs the command.
    func shellProcessID() throws -> pid_t {
        let output = try run(["display-message", "-p", "-t", "app", "#{pane_pid}"])
        guard let pid = pid_t(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("no pane pid in \(output)")
        }
        return pid
    }

    /// The pid of the process named `name` that the shell started.
    func childProcessID(named name: String) throws -> pid_t {
        let shell = try shellProcessID()
        let children = ProcessTable.children(of: shell).filter { $0.name == name }
        guard let child = children.first else {
            throw HarnessError("no \(name) process under pid \(shell)")
        }
        return child.pid
    }

    // MARK: - tmux

    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let result = try Shell.run(tmux, ["-S", socket] + arguments)
        guard result.status == 0 else {
            throw HarnessError("tmux \(arguments.first ?? "") failed: \(result.standardError)")
        }
        return result.standardOutput
    }
}

/// An error of the test harness itself.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
