#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many terminal cells text occupies.
enum TextWidth {
    /// One spacing character and the zero-width characters that follow it.
    struct Unit: Equatable, Sendable {
        var text: String
        var width: Int

        init(text: String, width: Int) {
            self.text = text
            self.width = width
        }
    }

    static let replacement: Unicode.Scalar = "\u{FFFD}"

    static let ellipsis = "…"

    static func width(of text: String) -> Int {
        units(of: text).reduce(0) { $0 + $1.width }
    }

    /// Splits `text` into units of one spacing character each.
    static func units(of text: String) -> [Unit] {
        units(of: text, beyondWidth: .max)
    }

    /// The units of `text`, up to the first that ends beyond `limit` cells:
    /// text that will be cut is measured only as far as it is shown, so a
    /// name of 100,000 characters costs no more than a short one.
    private static func units(of text: String, beyondWidth limit: Int) -> [Unit] {
        var units: [Unit] = []
        var total = 0
        withScalarWidths { width in
            for scalar in text.unicodeScalars {
                switch displayWidth(of: scalar, width) {
                case 0:
                    if units.isEmpty {
                        units.append(Unit(text: " ", width: 1))
                        total += 1
                    }
                    units[units.count - 1].text.unicodeScalars.append(scalar)
                    continue
                case let w where w > 0:
                    // The unit before is complete: stop past the limit.
                    if total > limit { return }
                    units.append(Unit(text: String(scalar), width: w))
                    total += w
                default:
                    if total > limit { return }
                    units.append(Unit(text: String(replacement), width: 1))
                    total += 1
                }
            }
        }
        return units
    }

    static func truncated(_ text: String, toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        let units = units(of: text, beyondWidth: width)
        if units.reduce(0, { $0 + $1.width }) <= width {
            return units.map(\.text).joined()
        }
        var result = ""
        var used = 0
        for unit in units {
            // Keep one cell for the ellipsis.
            if used + unit.width > width - 1 { break }
            result += unit.text
            used += unit.width
        }
        // "Max…", not "Max …".
        while result.last?.isWhitespace == true { result.removeLast() }
        return result + ellipsis
    }

    /// Splits `text` into the longest start that fits in `width` cells,
    /// cut after a space when there is one, and the rest.
    static func split(_ text: String, atWidth width: Int) -> (String, String) {
        let units = units(of: text)
        var used = 0
        var end = 0
        var lastSpace: Int?
        while end < units.count, used + units[end].width <= max(0, width) {
            used += units[end].width
            if units[end].text == " " { lastSpace = end }
            end += 1
        }
        if end < units.count, let lastSpace {
            end = lastSpace + 1
        }
        return (units[..<end].map(\.text).joined(), units[end...].map(\.text).joined())
    }

    static func padded(_ text: String, toWidth width: Int) -> String {
        let cut = truncated(text, toWidth: width)
        return cut + String(repeating: " ", count: max(0, width - self.width(of: cut)))
    }

    // MARK: - Scalar widths

    /// The width of one scalar: 0 (combining), 1, 2, or -1 (not displayable).
    private static func displayWidth(of scalar: Unicode.Scalar, _ width: (Unicode.Scalar) -> Int) -> Int {
        // NUL answers 0 and C1 controls answer -1; both must be replaced,
        // as must the bidirectional controls and the invisible spaces that
        // `wcwidth` counts as 0.
        if scalar.isNeutralized { return -1 }
        return width(scalar)
    }

    private static func withScalarWidths(_ body: ((Unicode.Scalar) -> Int) -> Void) {
        guard let wcwidth = CLibrary.wcwidth, let locale = CLibrary.utf8Locale.value else {
            body(fallbackWidth(of:))
            return
        }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        body { scalar in Int(wcwidth(wchar_t(scalar.value))) }
    }

    /// The C library's width of a scalar in the `C.UTF-8` locale, or nil
    /// when the library cannot tell.
    static func libraryWidth(of scalar: Unicode.Scalar) -> Int? {
        guard CLibrary.wcwidth != nil, CLibrary.utf8Locale.value != nil else { return nil }
        var width = 0
        withScalarWidths { width = $0(scalar) }
        return width
    }

    /// Widths when the C library cannot tell (no `C.UTF-8` locale): Markus
    /// Kuhn's classic ranges of wide characters, plus emoji presentation.
    static func fallbackWidth(of scalar: Unicode.Scalar) -> Int {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .unassigned, .surrogate, .lineSeparator, .paragraphSeparator:
            return -1
        case .nonspacingMark, .enclosingMark, .format:
            // U+00AD SOFT HYPHEN is a format character that terminals show.
            return scalar.value == 0xAD ? 1 : 0
        default:
            break
        }
        let v = scalar.value
        if (0x1160...0x11FF).contains(v) { return 0 }  // Hangul medial vowels, final consonants
        if properties.isEmojiPresentation { return 2 }
        let isWide =
            (0x1100...0x115F).contains(v)
            || (0x2E80...0xA4CF).contains(v) && v != 0x303F
            || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v)
            || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v)
            || (0x20000...0x2FFFD).contains(v)
            || (0x30000...0x3FFFD).contains(v)
        return isWide ? 2 : 1
    }
}

// MARK: - C library

private enum CLibrary {
    typealias WcwidthFunction = @convention(c) (wchar_t) -> Int32

    /// `wcwidth` looked up at run time: Glibc's module map hides its
    /// declaration behind `_XOPEN_SOURCE`, which Swift does not define.
    static let wcwidth: WcwidthFunction? = {
        #if os(Linux)
        let defaultHandle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #else
        let defaultHandle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(defaultHandle, "wcwidth") else { return nil }
        return unsafeBitCast(symbol, to: WcwidthFunction.self)
    }()

    /// The `C.UTF-8` locale, created once and never freed.
    static let utf8Locale = Locale(value: newlocale(LC_CTYPE_MASK, "C.UTF-8", nil))

    struct Locale: @unchecked Sendable {  // A locale_t is immutable once created, and uselocale is per thread.
        var value: locale_t?
    }
}
