/// Draws the state into a new screen of the state's size.
func hallOfFameRender(_ state: HallOfFameState) -> Screen {
    var screen = Screen(width: state.width, height: state.height)
    let layout = HallOfFameLayout(width: state.width, height: state.height)
    if layout.isTooSmall {
        screen.drawTooSmall(minimumWidth: HallOfFameLayout.minimumWidth, minimumHeight: HallOfFameLayout.minimumHeight)
    } else {
        drawTitle(state, layout, into: &screen)
        drawList(state, layout, into: &screen)
        drawStats(state, layout, into: &screen)
        drawFooter(state, layout, into: &screen)
        drawStatus(state, layout, into: &screen)
        switch state.mode {
        case .browsing:
            break
        case let .help(scroll):
            screen.drawHelpOverlay(keyBindings.map { ($0.keys, $0.description) }, scroll: scroll)
        case let .editing(form):
            drawForm(form, into: &screen)
        case .confirmingDeleteAll:
            drawConfirmation(state, into: &screen)
        }
    }
    if !state.useColor {
        for y in 0..<screen.height {
            for x in 0..<screen.width {
                screen[x, y].style.color = .normal
            }
        }
    }
    return screen
}

// MARK: - Styles

private enum Style {
    static let title = CellStyle(color: .title, bold: true, reverse: true)
    static let border = CellStyle(color: .border)
    static let paneTitle = CellStyle(color: .title, bold: true)
    static let value = CellStyle(color: .accent, bold: true)
    static let selection = CellStyle(color: .selection, bold: true, reverse: true)
    static let hintKey = CellStyle(color: .accent, bold: true)
    static let hint = CellStyle(color: .dim)
    static let status = CellStyle(color: .status)
    static let error = CellStyle(color: .error, bold: true)
    static let focusedField = CellStyle(color: .accent, reverse: true)
    static let field = CellStyle(color: .dim, reverse: true)
}

// MARK: - Main screen

private func drawTitle(_ state: HallOfFameState, _ layout: HallOfFameLayout, into screen: inout Screen) {
    let row = layout.title
    screen.fill(x: row.x, y: row.y, width: row.width, height: 1, style: Style.title)
    var title = " Hall of Fame — \(state.ordering.label)"
    if let change = state.highlighter.rowCountChangeText {
        // Players inserted or deleted since the user's last key.
        title += "  \(change)"
    }
    var position = ""
    if let (rank, count, isExact) = selectedRank(state) {
        let approximate = isExact ? "" : "~"
        position = "row \(approximate)\(grouped(rank)) of \(grouped(count)) "
        if TextWidth.width(of: title) + 1 + TextWidth.width(of: position) > row.width {
            position = "\(approximate)\(grouped(rank))/\(grouped(count)) "
        }
        if TextWidth.width(of: title) + 1 + TextWidth.width(of: position) > row.width {
            position = ""
        }
    }
    let positionWidth = TextWidth.width(of: position)
    screen.put(
        TextWidth.truncated(title, toWidth: row.width - positionWidth),
        x: row.x, y: row.y, style: Style.title)
    screen.put(position, x: row.x + row.width - positionWidth, y: row.y, style: Style.title)
}

/// The 1-based rank of the selected player, the player count, and whether
/// the rank is exact.
private func selectedRank(_ state: HallOfFameState) -> (Int, Int, Bool)? {
    guard let hallOfFame = state.hallOfFame, let index = state.selectedIndex else { return nil }
    let count = hallOfFame.playerCount
    let rank = min(max(1, hallOfFame.firstRank + index + 1), max(1, count))
    return (rank, count, hallOfFame.rankIsExact)
}

private func drawList(_ state: HallOfFameState, _ layout: HallOfFameLayout, into screen: inout Screen) {
    let box = layout.list
    screen.drawBox(x: box.x, y: box.y, width: box.width, height: box.height, style: Style.border)
    let innerWidth = box.width - 2
    let rows = layout.listRows
    guard let hallOfFame = state.hallOfFame else {
        drawCentered("Loading…", in: box, into: &screen)
        return
    }
    guard !hallOfFame.players.isEmpty else {
        drawCentered("No Player", in: box, into: &screen)
        return
    }

    // One score column for the whole window, so that it does not move as
    // the list scrolls. It is no wider than the longest integer, so that a
    // long text score that another process wrote leaves room for names.
    let scores = hallOfFame.players.map(\.score.description)
    let widestScore = scores.map { TextWidth.width(of: $0) }.max() ?? 1
    let scoreWidth = min(widestScore, maxScoreColumnWidth, max(1, innerWidth - 4))
    let nameWidth = max(0, innerWidth - 3 - scoreWidth)
    let selectedIndex = state.selectedIndex
    for row in 0..<rows {
        let index = state.scrollTop + row
        guard index < hallOfFame.players.count else { break }
        let player = hallOfFame.players[index]
        let style = index == selectedIndex ? Style.selection : CellStyle.plain
        let y = box.y + 1 + row
        let score = TextWidth.truncated(scores[index], toWidth: scoreWidth)
        let highlighter = state.highlighter
        // A player without an id is never highlighted: changes can not
        // tell it from another.
        let id = player.id
        let gapStyle = style.highlighted(id.flatMap { highlighter.rowHighlight(row: $0) })
        let parts: [(String, CellStyle)] = [
            (" ", gapStyle),
            (TextWidth.padded(player.name, toWidth: nameWidth),
             style.highlighted(id.flatMap { highlighter.highlight(row: $0, cell: HallOfFame.nameCell) })),
            (" ", gapStyle),
            (String(repeating: " ", count: scoreWidth - TextWidth.width(of: score)) + score,
             style.highlighted(id.flatMap { highlighter.highlight(row: $0, cell: HallOfFame.scoreCell) })),
            (" ", gapStyle),
        ]
        var x = box.x + 1
        let end = box.x + 1 + innerWidth
        for (text, partStyle) in parts where x < end {
            x += screen.put(text, x: x, y: y, style: partStyle, maxWidth: end - x)
        }
    }
}

/// The width of the longest integer score, "-9223372036854775808".
private let maxScoreColumnWidth = String(Int64.min).count

private func drawStats(_ state: HallOfFameState, _ layout: HallOfFameLayout, into screen: inout Screen) {
    let count: String
    let maxScore: String
    if let hallOfFame = state.hallOfFame {
        count = grouped(hallOfFame.playerCount)
        maxScore = hallOfFame.maxScore?.description ?? "-"
    } else {
        count = "…"
        maxScore = "…"
    }
    for (pane, title, value) in [(layout.countPane, "Players", count), (layout.maxScorePane, "Max score", maxScore)] {
        screen.drawBox(
            x: pane.x, y: pane.y, width: pane.width, height: pane.height,
            style: Style.border, title: title, titleStyle: Style.paneTitle)
        drawCentered(value, in: pane, style: Style.value, into: &screen)
    }
}

private func drawFooter(_ state: HallOfFameState, _ layout: HallOfFameLayout, into screen: inout Screen) {
    let hints: [(key: String, text: String)]
    switch state.mode {
    case .browsing:
        hints = fittingHints(width: layout.footer.width).map { hint in
            let parts = hint.split(separator: " ", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    case .help:
        hints = HelpPage.footerHints(rows: keyBindings.count, screenHeight: state.height)
    case .editing:
        hints = [("Enter", "save"), ("Esc", "cancel"), ("Tab", "field"), ("Ctrl-U", "clear")]
    case .confirmingDeleteAll:
        hints = [("y", "delete all"), ("n", "cancel")]
    }
    var x = layout.footer.x + 1
    let end = layout.footer.x + layout.footer.width
    for hint in hints {
        // Whole hints only: a cut hint would read as another key.
        let hintWidth = TextWidth.width(of: hint.key) + (hint.key.isEmpty ? 0 : 1) + TextWidth.width(of: hint.text)
        guard x + hintWidth <= end else { break }
        var text = hint.text
        if !hint.key.isEmpty {
            x += screen.put(hint.key, x: x, y: layout.footer.y, style: Style.hintKey, maxWidth: end - x)
            text = " " + text
        }
        x += screen.put(text, x: x, y: layout.footer.y, style: Style.hint, maxWidth: end - x)
        x += 2
    }
}

/// The footer hints of the key table that fit in `width`. The help and quit
/// hints always stay; the others are dropped from the end when needed.
private func fittingHints(width: Int) -> [String] {
    let all = keyBindings.compactMap(\.hint)
    let required = Set(
        keyBindings.filter { $0.actions.values.contains(.help) || $0.actions.values.contains(.quit) }
            .compactMap(\.hint))
    func totalWidth(_ hints: [String]) -> Int {
        1 + hints.map(TextWidth.width(of:)).reduce(0, +) + 2 * max(0, hints.count - 1)
    }
    var chosen = all.filter(required.contains)
    for hint in all where !required.contains(hint) {
        let candidate = all.filter { chosen.contains($0) || $0 == hint }
        if totalWidth(candidate) <= width {
            chosen = candidate
        }
    }
    return chosen
}

private func drawStatus(_ state: HallOfFameState, _ layout: HallOfFameLayout, into screen: inout Screen) {
    let row = layout.status
    let left: (text: String, style: CellStyle)?
    if let error = state.status.error {
        left = (error, Style.error)
    } else if let caption = state.status.caption {
        left = (caption, Style.status)
    } else if let deletions = deletionsText(state) {
        left = (deletions, Style.status)
    } else {
        left = nil
    }

    var right = ""
    switch state.status.stressTest {
    case let .running(completed, total):
        right = "stress test \(completed)/\(total)…"
    case let .finished(total, failed, seconds):
        right = "stress test: \(total - failed) ok, \(failed) failed, \(formatSeconds(seconds))"
    case nil:
        break
    }
    if state.status.pendingWrites > 0 {
        // A write waits (for another process's lock, at worst for the
        // busy timeout): say so, so that a frozen-looking list is not a
        // mystery.
        right = right.isEmpty ? "writing…" : "writing…  " + right
    }
    if let polling = state.status.polling {
        // How soon another machine's commits show: for as long as it lasts.
        right = right.isEmpty ? polling : right + "  " + polling
    }
    // The error or caption keeps at least half of the line.
    right = TextWidth.truncated(right, toWidth: left == nil ? row.width - 2 : (row.width - 3) / 2)
    let rightWidth = TextWidth.width(of: right)
    screen.put(right, x: row.x + row.width - 1 - rightWidth, y: row.y, style: Style.value)

    if let left {
        let leftWidth = row.width - 2 - rightWidth - (rightWidth > 0 ? 1 : 0)
        screen.put(TextWidth.truncated(left.text, toWidth: leftWidth), x: row.x + 1, y: row.y, style: left.style)
    }
}

/// "2 players deleted" since the user's last key, or nil.
private func deletionsText(_ state: HallOfFameState) -> String? {
    let highlighter = state.highlighter
    guard highlighter.isEnabled else { return nil }
    // This app's deletions are counted where they happen; another
    // process's show as deletions in the window, or as a fall of the count.
    let count = max(state.playersDeleted, highlighter.deletionsSinceLastLook, -min(0, highlighter.rowCountChange ?? 0))
    guard count > 0 else { return nil }
    return count == 1 ? "1 player deleted" : "\(grouped(count)) players deleted"
}

// MARK: - Overlays

private func drawForm(_ form: EditForm, into screen: inout Screen) {
    let box = centeredBox(width: 44, height: 7, in: screen)
    screen.drawBox(
        x: box.x, y: box.y, width: box.width, height: box.height,
        style: Style.border, title: "Edit player", titleStyle: Style.paneTitle)
    let labelWidth = 9  // "› Score  "
    let fieldX = box.x + 1 + labelWidth
    let fieldWidth = max(1, box.x + box.width - 2 - fieldX)
    for (offset, field) in [EditForm.Field.name, .score].enumerated() {
        let y = box.y + 2 + offset
        let isFocused = form.focus == field
        let label = (isFocused ? "› " : "  ") + (field == .name ? "Name" : "Score")
        screen.put(label, x: box.x + 1, y: y, style: isFocused ? Style.hintKey : .plain)
        let text = field == .name ? form.name : form.score
        let cursor = isFocused ? form.cursor : text.count
        let (visible, cursorColumn) = scrolledField(text, cursor: cursor, width: fieldWidth)
        let style = isFocused ? Style.focusedField : Style.field
        screen.fill(x: fieldX, y: y, width: fieldWidth, height: 1, style: style)
        screen.put(visible, x: fieldX, y: y, style: style, maxWidth: fieldWidth)
        if isFocused {
            screen.cursor = (fieldX + cursorColumn, y)
        }
    }
    if form.isSaving {
        screen.put(
            TextWidth.truncated("saving…", toWidth: box.width - 4),
            x: box.x + 2, y: box.y + 4, style: Style.status)
    } else if let error = form.error {
        // Two lines: a save error ("Save failed: SQLite error 5: database
        // is locked") is longer than the form is wide.
        let (first, rest) = TextWidth.split(error, atWidth: box.width - 4)
        screen.put(first, x: box.x + 2, y: box.y + 4, style: Style.error)
        if !rest.isEmpty, box.height >= 7 {
            screen.put(
                TextWidth.truncated(rest, toWidth: box.width - 4),
                x: box.x + 2, y: box.y + 5, style: Style.error)
        }
    }
}

/// The part of a field's text to show so that the cursor stays visible, and
/// the cursor's column in it.
private func scrolledField(_ text: String, cursor: Int, width: Int) -> (String, Int) {
    let characters = Array(text)
    let cursor = min(max(0, cursor), characters.count)
    var start = cursor
    var column = 0
    while start > 0 {
        let characterWidth = TextWidth.width(of: String(characters[start - 1]))
        if column + characterWidth >= width { break }
        column += characterWidth
        start -= 1
    }
    var visible = ""
    var visibleWidth = 0
    for character in characters[start...] {
        let characterWidth = TextWidth.width(of: String(character))
        if visibleWidth + characterWidth > width { break }
        visible.append(character)
        visibleWidth += characterWidth
    }
    return (visible, column)
}

private func drawConfirmation(_ state: HallOfFameState, into screen: inout Screen) {
    let count = state.hallOfFame?.playerCount ?? 0
    let question = "Delete all \(grouped(count)) \(count == 1 ? "player" : "players")?"
    let box = centeredBox(width: max(30, TextWidth.width(of: question) + 4), height: 5, in: screen)
    screen.drawBox(
        x: box.x, y: box.y, width: box.width, height: box.height,
        style: Style.border, title: "Delete all", titleStyle: Style.paneTitle)
    screen.put(
        TextWidth.truncated(question, toWidth: box.width - 4),
        x: box.x + 2, y: box.y + 1, style: Style.error)
    var x = box.x + 2
    let y = box.y + 3
    x += screen.put("y", x: x, y: y, style: Style.hintKey)
    x += screen.put(" yes   ", x: x, y: y, style: Style.hint)
    x += screen.put("n", x: x, y: y, style: Style.hintKey)
    screen.put(" no", x: x, y: y, style: Style.hint)
}

// MARK: - Helpers

/// Writes `text` centred inside a bordered box.
private func drawCentered(_ text: String, in box: Rect, style: CellStyle = .plain, into screen: inout Screen) {
    let text = TextWidth.truncated(text, toWidth: box.width - 2)
    let x = box.x + (box.width - TextWidth.width(of: text)) / 2
    screen.put(text, x: x, y: box.y + (box.height - 1) / 2, style: style)
}

/// "1.25 s".
private func formatSeconds(_ seconds: Double) -> String {
    let hundredths = Int((max(0, seconds) * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
}

extension Ordering {
    /// "by score" or "by name", as the title bar shows it.
    fileprivate var label: String {
        switch self {
        case .byScore: return "by score"
        case .byName: return "by name"
        }
    }
}
