/// A mouse report from the terminal, as xterm's SGR encoding (mode 1006)
/// sends it: `ESC [ < button ; x ; y M` for a press, `m` for a release.
package struct MouseEvent: Hashable, Sendable {
    package enum Action: Hashable, Sendable {
        case press, release, drag, wheelUp, wheelDown
    }

    package var action: Action
    /// 0 left, 1 middle, 2 right; 0 for the wheel.
    package var button: Int
    /// The cell, from 0 at the top left.
    package var x: Int
    package var y: Int
    package var shift = false
    package var alt = false
    package var control = false
    /// 2 for the second press of a double click: counted by `ClickCounter`,
    /// which the decoder, reading no clock, can not do.
    package var clickCount = 1

    package init(_ action: Action, button: Int = 0, x: Int, y: Int, clickCount: Int = 1) {
        self.action = action
        self.button = button
        self.x = x
        self.y = y
        self.clickCount = clickCount
    }

    /// The event of an SGR report's parameters (`0;12;5`, 1-based cells)
    /// and final byte, or nil for what is not one (another button, a
    /// sideways wheel, a cell out of range).
    init?(sgrParameters parameters: Substring, isRelease: Bool) {
        let fields = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        guard fields.count == 3, let code = fields[0], let column = fields[1], let row = fields[2],
              column >= 1, row >= 1, code >= 0 else { return nil }
        self.init(code: code, x: column - 1, y: row - 1, isRelease: isRelease)
    }

    /// From the button code of a report: the low two bits and bits 6 and 7
    /// name the button, bits 2 to 4 the modifiers, bit 5 a motion.
    init?(code: Int, x: Int, y: Int, isRelease: Bool) {
        let button = code & 0b11
        let isMotion = code & 32 != 0
        let action: Action
        switch code & 0b1100_0000 {
        case 0:
            if isRelease {
                action = .release
            } else if isMotion {
                // Button 3 in a motion is a move with no button down: not asked for.
                guard button != 3 else { return nil }
                action = .drag
            } else {
                action = .press
            }
        case 64:
            // 64 up, 65 down; 66 and 67 are a sideways wheel.
            guard !isRelease, button < 2 else { return nil }
            action = button == 0 ? .wheelUp : .wheelDown
        default:
            return nil
        }
        self.init(action, button: action == .wheelUp || action == .wheelDown ? 0 : button, x: x, y: y)
        shift = code & 4 != 0
        alt = code & 8 != 0
        control = code & 16 != 0
    }
}

/// Counts the presses of a double click: a press of the same button on the
/// same cell within `interval` of the one before.
package struct ClickCounter: Sendable {
    package static let interval: Duration = .milliseconds(400)
    private var last: (event: MouseEvent, time: ContinuousClock.Instant)?

    package init() {}

    /// `event`, its `clickCount` set if it is a press.
    package mutating func count(_ event: MouseEvent, at now: ContinuousClock.Instant) -> MouseEvent {
        guard event.action == .press else { return event }
        var counted = event
        if let last, last.event.button == event.button, last.event.x == event.x, last.event.y == event.y,
           now - last.time <= Self.interval {
            counted.clickCount = last.event.clickCount + 1
        }
        last = (counted, now)
        return counted
    }
}
