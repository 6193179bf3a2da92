import Foundation
import Synchronization

/// The random numbers of the app: names, scores and coin flips. A SplitMix64 seeded by `--seed` makes a
/// run reproducible: every draw happens inside a write, and the writer serializes them.
final class RandomSource: Sendable {
    /// The names of random players, the demo apps' list.
    static let names = [
        "Arthur", "Anita", "Barbara", "Bernard", "Craig", "Chiara", "David",
        "Dean", "Éric", "Elena", "Fatima", "Frederik", "Gilbert", "Georgette",
        "Henriette", "Hassan", "Ignacio", "Irene", "Julie", "Jack", "Karl",
        "Kristel", "Louis", "Liz", "Masashi", "Mary", "Noam", "Nicole",
        "Ophelie", "Oleg", "Pascal", "Patricia", "Quentin", "Quinn", "Raoul",
        "Rachel", "Stephan", "Susie", "Tristan", "Tatiana", "Ursule", "Urbain",
        "Victor", "Violette", "Wilfried", "Wilhelmina", "Yvon", "Yann",
        "Zazie", "Zoé",
    ]

    static let scores = 0...1000

    private let generator: Mutex<SplitMix64>

    init(seed: UInt64?) {
        var system = SystemRandomNumberGenerator()
        generator = Mutex(SplitMix64(seed: seed ?? system.next()))
    }

    func withGenerator<T>(_ body: (inout SplitMix64) -> T) -> T {
        generator.withLock { body(&$0) }
    }

    func name() -> String {
        withGenerator { Self.names.randomElement(using: &$0)! }
    }

    func score() -> Int {
        withGenerator { Int.random(in: Self.scores, using: &$0) }
    }

    func bool() -> Bool {
        withGenerator { Bool.random(using: &$0) }
    }

    func int64(in range: ClosedRange<Int64>) -> Int64 {
        withGenerator { Int64.random(in: range, using: &$0) }
    }

    /// A random player, not inserted yet: a name, then a score.
    func makePlayer() -> Player {
        let name = name()
        return Player(name: name, score: score())
    }
}

/// SplitMix64, the small and fast generator of Java's SplittableRandom,
/// chosen because its whole state is one integer: a seed is all it takes
/// to replay a sequence. See <https://prng.di.unimi.it/splitmix64.c>.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
