import ArgumentParser
import Dispatch
import Foundation
import LiveTableCore

/// `livetable demo`: the app walks a new user through its features.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch a walkthrough of the app, on a temporary database.",
        discussion: """
            Each step (populate, insert, edit, order, refresh, delete, stress test, \
            delete all) is announced by a caption in the status line, then played. \
            Any key skips to the next step; q or Ctrl-C quits. The step after the \
            stress test waits until its refreshes are over. The demo ends by itself \
            after the last step.

            With --database, the demo plays on that file (created if missing) and \
            leaves it as the steps made it: with no player, since the last step \
            deletes them all. When the file already holds players, the demo first \
            asks on the terminal whether to play on them: y plays the steps, from \
            the insert step on (there is no empty table to populate); any other \
            answer quits, and nothing is written to the file.
            """)

    @OptionGroup var options: AppOptions

    @Option(help: ArgumentHelp("How fast the steps go: 1 is about 1.5 s per step, 2 twice as fast.", valueName: "x"))
    var speed: Double = 1

    /// The duration of a step at speed 1.
    static let stepDuration: TimeInterval = 1.5

    func validate() throws {
        guard speed.isFinite, speed > 0 else {
            throw ValidationError("--speed must be a positive number.")
        }
    }

    mutating func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let launch = try Launch.prepare(environment: environment, noColor: options.noColor)
        let database: AppDatabase
        var playerCount = 0
        if let databasePath = options.databasePath {
            // The file is looked into, and the user asked, before it is
            // opened: opening it for the app writes to it.
            do {
                playerCount = try AppDatabase.playerCount(atPath: databasePath)
            } catch let error as AppDatabaseOpenError {
                throw CommandFailure(error.description, status: 1)
            }
            if let question = DemoScript.confirmation(path: databasePath, playerCount: playerCount),
               !Self.confirm(question)
            {
                return
            }
            database = try Launch.openDatabase(path: databasePath, seed: options.seed)
        } else {
            do {
                database = try AppDatabase.inMemory(seed: options.seed)
            } catch {
                throw CommandFailure("cannot create the demo database: \(error.oneLineDescription)", status: 1)
            }
        }
        let demo = DemoPlayer(
            steps: DemoScript.steps(playerCount: playerCount),
            stepDuration: Self.stepDuration / speed)
        try launch.start(database: database, demo: demo)
    }

    /// Asks `question` on the terminal, before the app takes the screen:
    /// true when the answer is y or yes.
    private static func confirm(_ question: String) -> Bool {
        FileHandle.standardOutput.write(Data("\(question) ".utf8))
        guard let answer = readLine() else {
            // End of input: no answer is no.
            FileHandle.standardOutput.write(Data("\n".utf8))
            return false
        }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

/// Plays `DemoScript.steps` through the app loop: each step's caption, then
/// its messages spread over the step, then the next step, once no stress
/// test runs.
@MainActor
final class DemoPlayer {
    private let steps: [DemoStep]
    private let stepDuration: TimeInterval
    private unowned var runtime: Runtime<HallOfFameProgram>!
    private var nextStep = 0
    /// The messages of the current step not sent yet.
    private var pending: [Message] = []
    /// Bumped on each step, so that timers of a skipped step do nothing.
    private var generation = 0
    /// True while the next step waits for the stress test to end.
    private var isWaitingForStressTest = false

    nonisolated init(steps: [DemoStep], stepDuration: TimeInterval) {
        self.steps = steps
        self.stepDuration = stepDuration
    }

    /// Takes the keys of `runtime`, and plays the first step.
    func start(_ runtime: Runtime<HallOfFameProgram>) {
        self.runtime = runtime
        runtime.interceptKeys { [unowned self] key in receive(key) }
        playNextStep()
    }

    /// Keys do not reach the app during the demo: the quit keys quit, Ctrl-Z
    /// suspends, any other key skips to the next step, once the stress test
    /// is over.
    private func receive(_ key: Key) {
        switch KeyBinding.action(for: key) {
        case .quit:
            runtime.exit(status: 0)
        case .suspend:
            runtime.loop.send(.key(key))
        default:
            // The next step is already due: it starts when the stress
            // test ends, not before.
            guard !isWaitingForStressTest else { return }
            // The rest of the step first, so that the app is in the state
            // the next step expects (an edit form closed, for example).
            while !pending.isEmpty {
                runtime.loop.send(pending.removeFirst())
            }
            playNextStep()
        }
    }

    /// Plays the next step, or ends the demo, once no stress test runs:
    /// deleting all players while its refreshes are queued would let them
    /// populate the table again.
    private func playNextStep() {
        generation += 1
        isWaitingForStressTest = true
        runtime.loop.when({ !$0.isStressTestRunning }) { [unowned self] in
            isWaitingForStressTest = false
            playStep()
        }
    }

    private func playStep() {
        guard nextStep < steps.count else {
            runtime.loop.send(.demoCaption(nil))
            runtime.exit(status: 0)
        }
        let step = steps[nextStep]
        nextStep += 1
        runtime.loop.send(.demoCaption(step.caption))
        pending = step.messages
        // The caption shows alone for a while, then the messages follow
        // at a steady pace (typing, for the edit form), leaving time to
        // see the effect of the last one.
        let first = stepDuration * 0.3
        let spacing = pending.count > 1 ? stepDuration * 0.4 / Double(pending.count - 1) : 0
        for index in pending.indices {
            schedule(after: first + spacing * Double(index)) { [unowned self] in
                if !pending.isEmpty {
                    runtime.loop.send(pending.removeFirst())
                }
            }
        }
        schedule(after: stepDuration) { [unowned self] in
            playNextStep()
        }
    }

    private func schedule(after delay: TimeInterval, _ action: @escaping @MainActor () -> Void) {
        let generation = generation
        DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [unowned self] in
            MainActor.assumeIsolated {
                if self.generation == generation {
                    action()
                }
            }
        }
    }
}
