import Foundation
import ReelCore

/// Darkening toward the corners, as a per-pixel gain (8.8 fixed point) computed once
/// for a picture size and applied to luma (YCbCr) or to R, G and B.
struct Vignette: Sendable {
    let intensity: Double
    let radius: Double

    /// gain = 1 − intensity · s², where s ramps from 0 at `radius` × 0.5 to 1 at the corners
    /// (distance normalised so that a corner is 1).
    func gains(width: Int, height: Int) -> [UInt16] {
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        let corner = (cx * cx + cy * cy).squareRoot()
        let start = 0.5 * radius
        var gains = [UInt16](repeating: 256, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot() / corner
                let s = min(max((d - start) / max(1 - start, 0.05), 0), 1)
                gains[y * width + x] = UInt16((max(0, 1 - intensity * s * s) * 256).rounded())
            }
        }
        return gains
    }

    func apply(_ source: PixelBuffer, into target: PixelBuffer, gains: [UInt16]) throws(ReelError) {
        let width = source.width, height = source.height
        switch source.pixelFormat {
        case .yuv420p, .nv12, .yuv444p:
            for index in 1..<source.planes.count { target.copyPlane(index, from: source) }
            source.withPlane(0) { input, inStride in
                target.withMutablePlane(0) { output, outStride in
                    gains.withUnsafeBufferPointer { gain in
                        ParallelRows.run(rows: height) { rows in
                        for y in rows {
                            for x in 0..<width {
                                let luma = Int32(input.load(fromByteOffset: y * inStride + x, as: UInt8.self)) - 16
                                let value = 16 + (luma * Int32(gain[y * width + x]) + 128) >> 8
                                output.storeBytes(of: UInt8(min(max(value, 0), 255)), toByteOffset: y * outStride + x,
                                                  as: UInt8.self)
                            }
                        }
                        }
                    }
                }
            }
        case .rgba, .bgra:
            source.withPlane(0) { input, inStride in
                target.withMutablePlane(0) { output, outStride in
                    gains.withUnsafeBufferPointer { gain in
                        ParallelRows.run(rows: height) { rows in
                        for y in rows {
                            for x in 0..<width {
                                let g = UInt32(gain[y * width + x])
                                let p = input + y * inStride + 4 * x, q = output + y * outStride + 4 * x
                                for channel in 0..<3 {
                                    let v = (UInt32(p.load(fromByteOffset: channel, as: UInt8.self)) * g + 128) >> 8
                                    q.storeBytes(of: UInt8(min(v, 255)), toByteOffset: channel, as: UInt8.self)
                                }
                                q.storeBytes(of: p.load(fromByteOffset: 3, as: UInt8.self), toByteOffset: 3, as: UInt8.self)
                            }
                        }
                        }
                    }
                }
            }
        default:
            throw ReelError(.unsupported, "Vignette runs on yuv420p, nv12, yuv444p, rgba and bgra, not \(source.pixelFormat)")
        }
    }
}
