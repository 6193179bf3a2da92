import Foundation
import Synchronization

/// The random numbers of the app: names and scores of random players, and
/// the coin flips of `refresh`.
///
/// It is a SplitMix64 generator, so that `--seed N` makes a run
/// reproducible: the same seed and the same intents produce the same
/// database. Without a seed, it starts from a system random seed.
///
/// Database writes are serialized, and all draws happen inside writes, so
/// concurrent intents (such as the stress test) draw in a deterministic
/// order: the order the writer runs them.
///
/// For example:
///
/// ```swift
/// let random = RandomSource(seed: 42)
/// let player = random.makePlayer() // the same player for every run
/// ```
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

    /// The range of random scores.
    static let scores = 0...1000

    private let generator: Mutex<SplitMix64>

    /// Creates a random source.
    ///
    /// - parameter seed: The seed. If nil, a system random seed.
    init(seed: UInt64?) {
        var system = SystemRandomNumberGenerator()
        generator = Mutex(SplitMix64(seed: seed ?? system.next()))
    }

    /// Runs `body` with exclusive access to the generator.
    func withGenerator<T>(_ body: (inout SplitMix64) -> T) -> T {
        generator.withLock { body(&$0) }
    }

    /// A random name from `RandomSource.names`.
    func name() -> String {
        withGenerator { Self.names.randomElement(using: &$0)! }
    }

    /// A random score in `RandomSource.scores`.
    func score() -> Int {
        withGenerator { Int.random(in: Self.scores, using: &$0) }
    }

    /// A random Boolean.
    func bool() -> Bool {
        withGenerator { Bool.random(using: &$0) }
    }

    /// A random integer in `range`.
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
///
/// For example:
///
/// ```swift
/// var generator = SplitMix64(seed: 42)
/// let score = Int.random(in: 0...1000, using: &generator)
/// ```
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// Creates a generator that starts from `seed`.
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
