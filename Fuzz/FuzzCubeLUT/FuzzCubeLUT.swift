// libFuzzer target: `.cube` text through CubeLUT's parser, and each table it accepts
// applied to a picture. Built and run by `make fuzz` (scripts/fuzz.sh).
import ReelCore
import ReelFilters

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCubeLUT(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    do throws(ReelError) {
        let table = try CubeLUT(text: text)
        let picture = try PixelBuffer(width: 8, height: 6, pixelFormat: .rgba)
        picture.fillRect(x: 0, y: 0, width: 8, height: 6, rgba: (200, 30, 90, 255))
        _ = try FilterChain([Filter(cube: table)]).apply(picture)
    } catch {
        // A refusal is the expected outcome for most inputs; a crash is what is sought.
    }
    return 0
}
