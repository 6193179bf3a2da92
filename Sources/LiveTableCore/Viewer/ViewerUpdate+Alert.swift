import Foundation

// MARK: - Alerts

extension ViewerState {
    /// `!`: the prompt, holding the alert's condition to edit.
    mutating func openAlertPrompt() -> [ViewerEffect] {
        guard table != nil else { return [] }
        prompt = ViewerPrompt(kind: .alert, text: alert?.expression ?? "")
        return []
    }

    /// Enter on the `!` prompt: the condition is checked on the sheet as a
    /// filter is; an empty one ends the alert.
    mutating func requestAlert(_ text: String) -> [ViewerEffect] {
        guard !text.allSatisfy(\.isWhitespace) else {
            guard alert != nil else { return [] }
            alert = nil
            message = .notice("alert off")
            return [.alert(.stop)]
        }
        guard let table else { return [] }
        alert = ViewerAlert(expression: text)
        message = .notice("checking the alert…")
        return [.alert(.check(table.viewed, text))]
    }

    /// Reads the matching rows once the screen has started: `--alert` is
    /// checked before, `!` when its check comes back.
    mutating func observeAlert() -> [ViewerEffect] {
        guard isStarted, var alert, let viewed = alert.viewed, !alert.isObserved else { return [] }
        alert.isObserved = true
        self.alert = alert
        return [.alert(.observe(viewed))]
    }

    mutating func receiveAlert(_ alertMessage: ViewerAlertMessage) -> [ViewerEffect] {
        guard var alert else { return [] }
        switch alertMessage {
        case let .checked(viewed):
            guard alert.viewed == nil else { return [] }
            alert.viewed = viewed
            self.alert = alert
            message = .notice("alert on: \(oneLineText(alert.expression))")
            return observeAlert()
        case let .checkFailed(error):
            guard alert.viewed == nil else { return [] }
            self.alert = nil
            message = .error(error)
            if overlay == nil, prompt == nil {
                // The rejected text comes back on the prompt, to be corrected.
                prompt = ViewerPrompt(kind: .alert, text: alert.expression)
            }
            return []
        case let .window(window):
            // A read of a condition replaced since.
            guard window.viewed.source.filter == alert.viewed?.source.filter else { return [] }
            let started = alert.take(window)
            self.alert = alert
            guard !started.isEmpty else { return [] }
            let rows = started.count == 1 ? "a row now matches" : "\(grouped(started.count)) rows now match"
            message = .notice("alert: \(rows) \(oneLineText(alert.expression))")
            return [.alert(.bell)]
        case let .failed(error, kind):
            // A transient failure is read again at the next commit; any other
            // ends the alert's reads, and `!` Enter starts them again.
            message = .error("alert: \(error)")
            return kind == .transient ? [] : [.alert(.stop)]
        }
    }
}

private func oneLineText(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
}
