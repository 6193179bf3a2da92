// The terminal runtime arrives with the livetable issue.
import LiveTableCore
print("livetable")
