import Foundation

extension Double {
    /// A finite number written in decimal ("0.5", ".25", "1e-2"), spaces around it ignored. Nil for
    /// hexadecimal, "nan", "inf" or "1e400", which `Double(_:)` reads: `--poll 0x10` is a typo.
    package init?(decimal text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        let isDecimal = text.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-")]
                .contains(byte)
        }
        guard isDecimal, let value = Double(text), value.isFinite else { return nil }
        self = value
    }
}
