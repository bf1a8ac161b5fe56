import CV4L2
import Foundation

/// The ioctl boundary of the V4L2 layer: the kernel here, a fake in the tests. Everything
/// above ``V4L2Device`` speaks Swift; the `v4l2_*` structs pass through this protocol and
/// stay inside ReelAV (and a test's fake).
package protocol V4L2Driver: AnyObject, Sendable {
    /// The camera nodes to look at (`/dev/video*`).
    func nodePaths() -> [String]
    /// A descriptor, or the errno the open failed with.
    func open(_ path: String) -> Result<Int32, V4L2Errno>
    /// Closes a descriptor from ``open(_:)``.
    func close(_ descriptor: Int32)
    /// ioctl: 0, or the errno it failed with.
    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    /// How libavdevice reads the node's frames at `rate`.
    func frameInput(path: String, rate: Double) -> V4L2FrameInput
}

/// Where libavdevice reads a V4L2 node's pictures from: an input format, a URL and its options.
package struct V4L2FrameInput: Sendable, Hashable {
    package var inputFormat: String
    package var url: String
    package var options: [String: String]

    package init(inputFormat: String, url: String, options: [String: String]) {
        self.inputFormat = inputFormat
        self.url = url
        self.options = options
    }
}

/// An errno from the driver.
package struct V4L2Errno: Error, Sendable {
    package var value: Int32

    package init(value: Int32) { self.value = value }
}

/// The kernel's V4L2: open(2), close(2), ioctl(2). Frames are read by libavdevice's
/// video4linux2 input, which already does mmap streaming, MJPEG and YUYV decoding and
/// timestamps through FFmpeg; Reel's own code keeps to what libavdevice lacks: discovery,
/// the controls and the errors.
package final class KernelV4L2: V4L2Driver {
    package init() {}

    package func nodePaths() -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: "/dev")
        } catch {
            return [] // no /dev to list: no cameras
        }
        return names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }.map { "/dev/\($0)" }
    }

    package func open(_ path: String) -> Result<Int32, V4L2Errno> {
        let descriptor = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        return descriptor >= 0 ? .success(descriptor) : .failure(V4L2Errno(value: errno))
    }

    package func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    package func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        reel_v4l2_ioctl(descriptor, request, argument) == 0 ? 0 : errno
    }

    package func frameInput(path: String, rate: Double) -> V4L2FrameInput {
        let frames = rate.isFinite ? Int(min(max(rate, 1), 1000).rounded()) : 30
        return V4L2FrameInput(inputFormat: "video4linux2", url: path, options: ["framerate": String(frames)])
    }
}
