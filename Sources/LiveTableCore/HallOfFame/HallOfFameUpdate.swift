/// Applies a message to the state, and returns the work the app loop must do.
func hallOfFameUpdate(_ state: inout HallOfFameState, _ message: HallOfFameMessage) -> [HallOfFameEffect] {
    var effects = state.apply(message)
    effects += state.setHighlightTimer()
    return effects
}

extension HallOfFameState {
    fileprivate mutating func apply(_ message: HallOfFameMessage) -> [HallOfFameEffect] {
        switch message {
        case let .key(key):
            return press(key)
        case let .resize(width, height):
            return resize(width: width, height: height)
        case let .hallOfFame(hallOfFame, now):
            return receive(hallOfFame, at: now)
        case let .highlightTick(now):
            return highlightTick(at: now)
        case let .deletedPlayersFound(ids, error):
            return deletedPlayersFound(ids, error: error)
        case let .observationFailed(error):
            return observationFailed(error)
        case let .writeFinished(effect, error):
            return writeFinished(effect, error: error)
        case let .externalChangesPolled(note, reason):
            return externalChangesPolled(note: note, reason: reason)
        case let .playersDeleted(count):
            playersDeleted += count
            return []
        case let .stressProgress(completed, total):
            return stressProgress(completed: completed, total: total)
        case let .stressFinished(total, failed, seconds, firstError):
            return stressFinished(total: total, failed: failed, seconds: seconds, firstError: firstError)
        }
    }

    /// Takes a key: what it does, and the writes it starts, counted until they
    /// finish.
    private mutating func press(_ key: Key) -> [HallOfFameEffect] {
        // The user looks at the screen: the row-count change and the
        // deletions count start again from here.
        highlighter.markAsSeen()
        playersDeleted = 0
        let effects = handle(key)
        status.pendingWrites += effects.filter(\.isWrite).count
        return effects
    }

    private mutating func highlightTick(at now: ContinuousClock.Instant) -> [HallOfFameEffect] {
        // The timer has fired: it runs no longer, and is set again
        // below if some highlight remains (also when it fired a little
        // early, before the deadline it was set for).
        highlightTimer = nil
        highlighter.advance(to: now)
        return []
    }

    /// Notes the players that were deleted, for their highlight, or says why
    /// they are unknown.
    private mutating func deletedPlayersFound(_ ids: [Int64], error: String?) -> [HallOfFameEffect] {
        if let error {
            status.error = "Deleted players unknown: \(error)"
        } else {
            highlighter.noteDeletions(ids)
        }
        return []
    }

    /// Says why the observation failed: the next request is observed again.
    private mutating func observationFailed(_ error: String) -> [HallOfFameEffect] {
        status.error = "Observation failed: \(error)"
        // No observation runs any longer: the next request must be emitted
        // even if it equals the failed one.
        observedRequest = nil
        return []
    }

    /// Takes the end of a write: the edit form that waited for its save closes,
    /// or says why it failed.
    private mutating func writeFinished(_ effect: HallOfFameEffect, error: String?) -> [HallOfFameEffect] {
        status.pendingWrites = max(0, status.pendingWrites - 1)
        if case let .updatePlayer(player) = effect, case var .editing(form) = mode,
           form.isSaving, form.player.id == player.id
        {
            // The form waited for its save: close it, or show why it
            // failed, with the edit kept.
            if let error {
                form.isSaving = false
                form.error = "Save failed: \(error)"
                mode = .editing(form)
            } else {
                mode = .browsing
            }
            return []
        }
        if let error {
            status.error = "Write failed: \(error)"
        }
        return []
    }

    private mutating func externalChangesPolled(note: String, reason: String?) -> [HallOfFameEffect] {
        guard status.polling != note else { return [] }
        status.polling = note
        if let reason {
            status.error = "Changes of other processes are polled: \(reason)"
        }
        return []
    }

    private mutating func stressProgress(completed: Int, total: Int) -> [HallOfFameEffect] {
        // A late progress must not revive a finished test, or `s` would be
        // ignored forever.
        if isStressTestRunning {
            status.stressTest = .running(completed: completed, total: total)
        }
        return []
    }

    private mutating func stressFinished(total: Int, failed: Int, seconds: Double, firstError: String?) -> [HallOfFameEffect] {
        status.stressTest = .finished(total: total, failed: failed, seconds: seconds)
        if failed > 0 {
            // The counts are on the right of the status line; the error
            // says why.
            status.error = "Stress test refresh failed: \(firstError ?? "unknown error")"
        }
        return []
    }
}
