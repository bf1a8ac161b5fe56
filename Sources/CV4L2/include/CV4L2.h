// The V4L2 kernel interface for Swift: the structs come from <linux/videodev2.h>;
// the VIDIOC_* request numbers (function-like macros) and ioctl (variadic) cannot be
// imported, so they are wrapped here.
#ifndef REEL_CV4L2_H
#define REEL_CV4L2_H
#include <linux/videodev2.h>

unsigned long reel_vidioc_querycap(void);
unsigned long reel_vidioc_enum_fmt(void);
unsigned long reel_vidioc_enum_framesizes(void);
unsigned long reel_vidioc_enum_frameintervals(void);
unsigned long reel_vidioc_queryctrl(void);
unsigned long reel_vidioc_g_ctrl(void);
unsigned long reel_vidioc_s_ctrl(void);
unsigned long reel_vidioc_g_parm(void);
unsigned long reel_vidioc_s_parm(void);
/// ioctl(fd, request, argument): 0, or -1 with errno set.
int reel_v4l2_ioctl(int fd, unsigned long request, void *argument);
#endif
