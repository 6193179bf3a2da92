/// The lines entered at a prompt, oldest first, and a walk through them
/// with ↑ ↓ that comes back to the line being typed.
package struct PromptHistory: Equatable, Sendable {
    /// Where a walk stands: nil on the line being typed, else an index of `lines`.
    package struct Walk: Equatable, Sendable {
        var index: Int?
        /// The line being typed when the walk left it, given back at its end.
        var draft = ""
    }

    /// The lines, oldest first, each once.
    package private(set) var lines: [String] = []
    /// The most lines kept: the oldest go first.
    var limit = 100

    package init() {}

    /// Adds a line entered (empty ones are not kept); entered again, it moves to the end.
    mutating func add(_ line: String) {
        guard !line.isEmpty else { return }
        lines.removeAll { $0 == line }
        lines.append(line)
        if lines.count > limit {
            lines.removeFirst(lines.count - limit)
        }
    }

    /// Puts the line before (`back`) or after the walk's in `field`; after the
    /// newest, the line that was being typed.
    func step(back: Bool, walk: inout Walk, field: inout TextField) {
        let index: Int?
        switch (walk.index, back) {
        case (nil, true):
            // A line equal to the one typed (`f` opens on the current
            // filter) would look like no step at all.
            guard let newest = lines.lastIndex(where: { $0 != field.text }) else { return }
            walk.draft = field.text
            index = newest
        case (nil, false):
            return
        case let (current?, true):
            index = max(0, current - 1)
        case let (current?, false):
            index = current + 1 < lines.count ? current + 1 : nil
        }
        walk.index = index
        field = TextField(text: index.map { lines[$0] } ?? walk.draft, maximumLength: field.maximumLength)
    }
}
