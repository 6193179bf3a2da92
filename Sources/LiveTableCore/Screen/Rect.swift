/// A rectangle of cells.
struct Rect: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
}
