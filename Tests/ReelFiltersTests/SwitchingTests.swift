import Dispatch
import Foundation
import ReelCore
import ReelFilters
import Testing

/// Switching looks while frames are being filtered never gives a frame of two looks.
@Suite struct SwitchingTests {
    /// The switcher runs on its own thread and switches far more often than ten times a
    /// second of frames, so that a switch lands inside a frame's filtering if one can.
    @Test func tenSwitchesASecondOverAThousandFrames() throws {
        // 720 lines: BT.709, whose Sepia chroma is (101, 148) (below 720 the looks work in BT.601).
        let source = try PixelBuffer(width: 160, height: 720, pixelFormat: .nv12)
        source.fill(planeValues: [120, 90])  // a bluish grey: Cb 90, Cr 90
        let mono = [try Filter(name: "PhotoEffectMono")]
        let sepia = [try Filter(name: "SepiaTone")]
        let chain = FilterChain(mono)
        let done = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let switcher = Thread {
            var useSepia = true
            while done.wait(timeout: .now()) == .timedOut {
                chain.filters = useSepia ? sepia : mono
                useSepia.toggle()
                usleep(300)
            }
            finished.signal()
        }
        switcher.start()
        var looks: Set<[UInt8]> = []
        for _ in 0..<1000 {
            let output = try chain.apply(source)
            // Every chroma pair of the frame must be the same: one look for the whole frame.
            let first = output.element(plane: 1, x: 0, y: 0) ?? []
            var uniform = true
            output.withPlane(1) { base, stride in
                for y in 0..<output.planes[1].height {
                    for x in 0..<output.planes[1].width where
                        base.load(fromByteOffset: y * stride + 2 * x, as: UInt8.self) != first[0]
                        || base.load(fromByteOffset: y * stride + 2 * x + 1, as: UInt8.self) != first[1] {
                        uniform = false
                    }
                }
            }
            #expect(uniform)
            looks.insert(first)
        }
        done.signal()
        finished.wait()
        #expect(looks.isSubset(of: [[128, 128], [101, 148]]), "\(looks)")
        #expect(looks.count == 2, "both looks were seen")
    }

    /// A filter made after another was freed may sit at the same address: the chain must
    /// still notice the change.
    @Test func aNewFilterIsNeverMistakenForAFreedOne() throws {
        let source = try PixelBuffer(width: 16, height: 720, pixelFormat: .nv12) // BT.709, as above
        source.fill(planeValues: [120, 90])
        let chain = FilterChain([try Filter(name: "PhotoEffectNoir")])
        for _ in 0..<200 {
            chain.filters = [try Filter(name: "PhotoEffectNoir")]
            #expect(try chain.apply(source).element(plane: 1, x: 0, y: 0) == [128, 128])
            chain.filters = []
            chain.filters = [try Filter(name: "SepiaTone")]
            #expect(try chain.apply(source).element(plane: 1, x: 0, y: 0) == [101, 148])
        }
    }
}
