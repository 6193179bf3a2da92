import CNcurses
import Foundation
import LiveTableCore

/// The ncurses screen: set up in non-blocking raw mode, drawn from the
/// `Screen` grids that `render` produces, and restored on exit.
/// Only the main thread uses it: ncurses is not thread-safe.
@MainActor
final class Terminal {
    /// The terminal width, in cells.
    private(set) var width: Int
    /// The terminal height, in cells.
    private(set) var height: Int

    private let palette: Palette
    /// False when the screen is drawn in monochrome: `--no-color`,
    /// `NO_COLOR`, or a terminal without colours.
    var usesColor: Bool { palette.usesColor }
    /// The grid on the terminal, to draw only the cells that change.
    private var previous: Screen?
    private var cursorVisibility: Int32 = -1
    private var isRestored = false
    /// True when the terminal may have left keypad transmit mode: after a
    /// suspend (`endwin` turns it off) or when the process continues.
    private var needsKeypadMode = false
    /// Keeps a paste that spans reads.
    private var decoder = KeyDecoder()
    /// Whether the terminal reports the mouse (`--no-mouse` turns it off).
    private let reportsMouse: Bool
    private var clicks = ClickCounter()

    /// Sets up the screen. Call `TerminalRequirements.check` first:
    /// `newterm` fails on the same terminals, but after writing to them.
    init(theme: Theme, mouse: Bool) throws(TerminalError) {
        var modes = termios()
        let hasModes = tcgetattr(STDIN_FILENO, &modes) == 0

        // Esc alone arrives after 25 ms instead of ncurses' default second.
        // The rest of an escape sequence comes within that delay, in the
        // same read, which is how `Key.decoding(_:)` tells Esc (which
        // closes what is on top) from a sequence.
        set_escdelay(25)
        guard lt_newterm() != nil else {
            throw TerminalError(description: "cannot set up the terminal (TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? ""))")
        }
        CrashGuard.arm(terminalModes: hasModes ? modes : nil, resetSequence: Self.resetSequence())

        // Raw mode: Ctrl-C and Ctrl-Z arrive as keys, not signals.
        raw()
        noecho()
        keypad(lt_stdscr(), true)
        nodelay(lt_stdscr(), true)
        // The mouse reports come as bytes, for `KeyDecoder`: not as
        // ncurses' KEY_MOUSE, which terminfo's kmous would make of them.
        _ = keyok(KEY_MOUSE, false)
        reportsMouse = mouse
        Self.setBracketedPaste(true)
        palette = Palette(theme: theme)
        width = Int(lt_getmaxx(lt_stdscr()))
        height = Int(lt_getmaxy(lt_stdscr()))
        setMouseReports(true)
        setCursorVisibility(0)
    }

    /// The bytes that bring the terminal back from the app's screen,
    /// written by the crash handler, which can not call `endwin`.
    private static func resetSequence() -> [UInt8] {
        var bytes: [UInt8] = []
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            if let value = lt_tigetstr(capability) {
                bytes += Array(String(cString: value).utf8)
            }
        }
        return bytes + Array(Self.bracketedPasteOff.utf8) + Array(Self.mouseReportsOff.utf8)
    }

    /// A paste comes between markers (`KeyDecoder`), so that its line ends
    /// are not Enter. Terminals that do not know the mode ignore it.
    private static func setBracketedPaste(_ on: Bool) {
        // putp writes to stdout's buffer: flushed at once (fflush(nil)
        // flushes every stream), before ncurses' next write.
        _ = putp(on ? "\u{1B}[?2004h" : bracketedPasteOff)
        fflush(nil)
    }

    private static let bracketedPasteOff = "\u{1B}[?2004l"

    /// Clicks and the wheel (1000) in SGR's encoding (1006), which has no
    /// limit of 223 columns. The terminal's own selection stays on Shift.
    private func setMouseReports(_ on: Bool) {
        guard reportsMouse else { return }
        _ = putp(on ? "\u{1B}[?1000h\u{1B}[?1006h" : Self.mouseReportsOff)
        fflush(nil)
    }

    private static let mouseReportsOff = "\u{1B}[?1006l\u{1B}[?1000l"

    // MARK: - Drawing

    /// Copies `screen` to the terminal: only the cells that differ from the
    /// last screen drawn, then the cursor, then one refresh.
    func draw(_ screen: Screen) {
        guard !isRestored else { return }
        let old = previous.flatMap { $0.width == screen.width && $0.height == screen.height ? $0 : nil }
        if old == nil {
            erase()
        }
        let rows = min(screen.height, height)
        let columns = min(screen.width, width)
        for y in 0..<rows {
            for x in 0..<columns {
                let cell = screen[x, y]
                if let old, old[x, y] == cell {
                    continue
                }
                // The wide character on the left draws both halves.
                if cell.isContinuation && x > 0 {
                    continue
                }
                put(cell, x: x, y: y)
            }
        }
        previous = screen
        if let cursor = screen.cursor, cursor.x >= 0, cursor.y >= 0, cursor.x < columns, cursor.y < rows {
            setCursorVisibility(1)
            move(Int32(cursor.y), Int32(cursor.x))
        } else {
            setCursorVisibility(0)
        }
        refresh()
        if needsKeypadMode {
            // ncurses turns keypad transmit mode back on at its next read
            // only, after the user's first key: an arrow would arrive in
            // the other cursor-key mode. Turn it on now, once the screen is
            // the app's again.
            keypad(lt_stdscr(), true)
            Self.setBracketedPaste(true)
            setMouseReports(true)
            needsKeypadMode = false
        }
    }

    /// BEL, or OSC 52, which terminals, tmux (`set-clipboard on`) and SSH
    /// pass to the clipboard. Through ncurses' own output, flushed at once:
    /// it comes between two screens, never inside one.
    func signal(_ signal: TerminalSignal) {
        guard !isRestored else { return }
        switch signal {
        case .bell:
            _ = putp("\u{07}")
        case let .clipboard(text):
            _ = putp("\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}")
            refresh()
        }
        fflush(nil)
    }

    private func put(_ cell: Cell, x: Int, y: Int) {
        var characters: [wchar_t] = []
        for scalar in cell.text.unicodeScalars {
            // A cchar_t holds a base character and a few combining ones.
            guard characters.count < Int(CCHARW_MAX) else { break }
            let value = scalar.value
            let printable = value >= 0x20 && value != 0x7F && !(0x80..<0xA0).contains(value)
            characters.append(wchar_t(bitPattern: printable ? value : 0x3F /* ? */))
        }
        if characters.isEmpty {
            characters.append(0x20)
        }
        characters.append(0)
        let (attributes, pair) = palette.attributes(for: cell.style)
        var character = cchar_t()
        setcchar(&character, characters, attributes, pair, nil)
        // Writing the bottom-right cell returns ERR (the cursor can not
        // advance), but the cell is drawn.
        _ = mvadd_wch(Int32(y), Int32(x), &character)
    }

    private func setCursorVisibility(_ visibility: Int32) {
        if visibility != cursorVisibility {
            // ERR when the terminal can not hide the cursor: nothing to do.
            _ = curs_set(visibility)
            cursorVisibility = visibility
        }
    }

    // MARK: - Input and size

    /// The keys waiting on standard input, without blocking.
    func readKeys() -> [Key] {
        var inputs: [TerminalInput] = []
        var character: wint_t = 0
        while true {
            let result = wget_wch(lt_stdscr(), &character)
            if result == ERR {
                break
            }
            inputs.append(result == KEY_CODE_YES
                ? .functionKey(KeyDecoding.key(keyCode: Int32(bitPattern: character)))
                : .character(UInt32(character)))
        }
        let now = ContinuousClock.now
        return decoder.decode(inputs).compactMap { key in
            guard case let .mouse(event) = key else { return key }
            // Reports not asked for (`--no-mouse`) are dropped, not typed.
            return reportsMouse ? .mouse(clicks.count(event, at: now)) : nil
        }
    }

    /// Reads the real terminal size after a SIGWINCH, and tells ncurses.
    func updateSize() {
        var rows: Int32 = 0
        var columns: Int32 = 0
        if lt_window_size(STDOUT_FILENO, &rows, &columns) == 0 {
            resizeterm(rows, columns)
        }
        width = Int(lt_getmaxx(lt_stdscr()))
        height = Int(lt_getmaxy(lt_stdscr()))
        // Redraw everything: the terminal may have reflowed or cleared.
        previous = nil
        clearok(lt_curscr(), true)
        needsKeypadMode = true
    }

    // MARK: - Suspend and exit

    /// Gives the terminal back before the process stops.
    func suspend() {
        guard !isRestored else { return }
        Self.setBracketedPaste(false)
        setMouseReports(false)
        endwin()
        needsKeypadMode = true
    }

    /// Leaves the app's screen and gives the terminal its modes back. Safe
    /// to call more than once.
    func restore() {
        guard !isRestored else { return }
        isRestored = true
        setCursorVisibility(1)
        Self.setBracketedPaste(false)
        setMouseReports(false)
        endwin()
        CrashGuard.disarm()
    }
}
