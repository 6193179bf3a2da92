/// Decodes the terminal's input into keys, read after read. A paste
/// (bracketed: `ESC [ 200 ~` … `ESC [ 201 ~`) can span several reads: its
/// text is kept until its end, then comes as one `.paste` key, so that a
/// pasted line end never runs a prompt. A mouse report cut by the end of a
/// read waits for its end too, so that its digits are not typed.
package struct KeyDecoder: Sendable {
    /// The text of a paste whose end has not come yet.
    private var paste: [Unicode.Scalar]?
    /// The start of a mouse report, `ESC [` or `ESC [ <` and digits, that
    /// ended a read.
    private var pendingReport: [TerminalInput] = []

    /// The longest paste kept: the rest is dropped.
    static let maximumPaste = 100_000

    package init() {}

    package mutating func decode(_ inputs: [TerminalInput]) -> [Key] {
        // `ESC [` alone goes on only with a report's `<`.
        let goesOn = pendingReport.count > 2 || inputs.first == .character(0x3C)
        let inputs = (goesOn ? pendingReport : []) + inputs
        pendingReport = []
        var keys: [Key] = []
        var index = 0
        while index < inputs.count {
            if paste != nil {
                index = takePaste(inputs, from: index, into: &keys)
                continue
            }
            let input = inputs[index]
            index += 1
            switch input {
            case let .functionKey(key):
                if let key { keys.append(key) }
            case .character(escapeByte):
                guard index < inputs.count else {
                    keys.append(.escape)
                    break
                }
                if Self.starts(inputs[index...], with: Self.pasteStart) {
                    index += Self.pasteStart.count
                    paste = []
                    continue
                }
                if Self.isUnfinishedMouseReport(inputs[index...]) {
                    pendingReport = Array(inputs[(index - 1)...])
                    return keys
                }
                let (key, length) = Key.escapeSequence(inputs[index...])
                index += length
                if let key { keys.append(key) }
            case let .character(value):
                if let key = Key(character: value) { keys.append(key) }
            }
        }
        return keys
    }

    /// Takes the paste's text from `index` up to its end marker, if it is
    /// in this read; returns the index after what was taken.
    private mutating func takePaste(_ inputs: [TerminalInput], from start: Int, into keys: inout [Key]) -> Int {
        var index = start
        while index < inputs.count {
            if case .character(escapeByte) = inputs[index], Self.starts(inputs[(index + 1)...], with: Self.pasteEnd) {
                let text = String(String.UnicodeScalarView(paste ?? []))
                paste = nil
                if !text.isEmpty { keys.append(.paste(text)) }
                return index + 1 + Self.pasteEnd.count
            }
            if case let .character(value) = inputs[index], let scalar = Unicode.Scalar(value),
               (paste?.count ?? 0) < Self.maximumPaste {
                paste?.append(scalar)
            }
            index += 1
        }
        return index
    }

    /// Whether `rest`, after an Esc, is `[`, or `[ <` and a report's
    /// parameters, up to the end of the read, short enough to be one.
    private static func isUnfinishedMouseReport(_ rest: ArraySlice<TerminalInput>) -> Bool {
        if rest.count == 1, rest.first == .character(0x5B) { return true }
        guard rest.count <= maximumReport, starts(rest, with: mouseReportStart) else { return false }
        return rest.dropFirst(mouseReportStart.count).allSatisfy { input in
            guard case let .character(value) = input else { return false }
            return (0x30...0x3B).contains(value)  // Digits and ";".
        }
    }

    private static let mouseReportStart = Array("[<".unicodeScalars.map(\.value))
    /// `[<` and three numbers of four digits, and their separators.
    private static let maximumReport = 16

    private static let pasteStart = Array("[200~".unicodeScalars.map(\.value))
    private static let pasteEnd = Array("[201~".unicodeScalars.map(\.value))

    private static func starts(_ inputs: ArraySlice<TerminalInput>, with marker: [UInt32]) -> Bool {
        guard inputs.count >= marker.count else { return false }
        return zip(inputs, marker).allSatisfy { $0 == .character($1) }
    }
}

private let escapeByte: UInt32 = 0x1B
