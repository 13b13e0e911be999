// AWS Nitro Security Module (NSM) device access for Node: open /dev/nsm and exchange one raw
// request/response pair of CBOR buffers through the driver's single ioctl. CBOR encoding and decoding
// happen in TypeScript (native/nsm/messages.ts); this file only moves bytes.
//
// The ioctl ABI (Linux uapi <linux/nsm.h>, drivers/misc/nsm.c; same layout as the NsmMessage of
// aws-nitro-enclaves-nsm-api's driver module):
//   struct nsm_iovec { __u64 addr; __u64 len; };
//   struct nsm_raw { struct nsm_iovec request; struct nsm_iovec response; };
//   #define NSM_IOCTL_RAW _IOWR(0x0A, 0x0, struct nsm_raw)
// request.len is at most 0x1000 (larger: EMSGSIZE); response.len is the buffer capacity going in and
// the number of bytes written coming back (the device writes at most 0x3000).

#include <napi.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace {

constexpr uint32_t kNsmMagic = 0x0A;
constexpr size_t kRequestMaxSize = 0x1000;
constexpr size_t kResponseMaxSize = 0x3000;

struct NsmIovec {
  uint64_t addr;
  uint64_t len;
};

struct NsmRaw {
  NsmIovec request;
  NsmIovec response;
};

static_assert(sizeof(NsmRaw) == 32, "struct nsm_raw is two 16-byte iovecs");

const unsigned long kNsmIoctlRaw = _IOWR(kNsmMagic, 0x0, NsmRaw);

// An Error carrying the failed system call and errno, like Node's own ErrnoException.
Napi::Error ErrnoError(Napi::Env env, const char* syscall, int err, const std::string& detail) {
  std::string message = std::string(syscall) + " failed: " + std::strerror(err);
  if (!detail.empty()) message += " (" + detail + ")";
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("syscall", Napi::String::New(env, syscall));
  error.Set("errno", Napi::Number::New(env, err));
  return error;
}

Napi::Error ArgumentError(Napi::Env env, const std::string& message) {
  Napi::Error error = Napi::TypeError::New(env, message);
  error.Set("code", Napi::String::New(env, "ERR_INVALID_ARG"));
  return error;
}

// A descriptor argument: an integer in [0, 2^31).
bool ReadFd(const Napi::CallbackInfo& info, size_t index, int* fd) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsNumber()) {
    ArgumentError(env, "fd must be a number").ThrowAsJavaScriptException();
    return false;
  }
  double value = info[index].As<Napi::Number>().DoubleValue();
  if (!(value >= 0 && value <= 2147483647.0) || value != static_cast<double>(static_cast<int64_t>(value))) {
    ArgumentError(env, "fd must be a non-negative 32-bit integer").ThrowAsJavaScriptException();
    return false;
  }
  *fd = static_cast<int>(value);
  return true;
}

// The request argument: a Uint8Array of 1..0x1000 bytes, copied so a worker thread can own it.
bool ReadRequest(const Napi::CallbackInfo& info, size_t index, std::vector<uint8_t>* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsTypedArray() ||
      info[index].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    ArgumentError(env, "request must be a Uint8Array").ThrowAsJavaScriptException();
    return false;
  }
  Napi::Uint8Array bytes = info[index].As<Napi::Uint8Array>();
  if (bytes.ByteLength() == 0 || bytes.ByteLength() > kRequestMaxSize) {
    ArgumentError(env, "request must be 1.." + std::to_string(kRequestMaxSize) + " bytes, got " +
                           std::to_string(bytes.ByteLength()))
        .ThrowAsJavaScriptException();
    return false;
  }
  out->assign(bytes.Data(), bytes.Data() + bytes.ByteLength());
  return true;
}

// One raw exchange. Returns 0 and fills `response`, or an errno value.
int Exchange(int fd, const std::vector<uint8_t>& request, std::vector<uint8_t>* response) {
  response->assign(kResponseMaxSize, 0);
  NsmRaw raw;
  raw.request.addr = reinterpret_cast<uint64_t>(request.data());
  raw.request.len = request.size();
  raw.response.addr = reinterpret_cast<uint64_t>(response->data());
  raw.response.len = response->size();
  int rc;
  do {
    rc = ioctl(fd, kNsmIoctlRaw, &raw);
  } while (rc == -1 && errno == EINTR);
  if (rc == -1) return errno;
  if (raw.response.len > kResponseMaxSize) return EPROTO;
  response->resize(static_cast<size_t>(raw.response.len));
  return 0;
}

// open(path) -> fd
Napi::Value Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    ArgumentError(env, "path must be a string").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string path = info[0].As<Napi::String>().Utf8Value();
  if (path.empty() || path.find('\0') != std::string::npos) {
    ArgumentError(env, "path must be a non-empty string without NUL").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int fd;
  do {
    fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  } while (fd == -1 && errno == EINTR);
  if (fd == -1) {
    Napi::Error error = ErrnoError(env, "open", errno, path);
    error.Set("path", Napi::String::New(env, path));
    error.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, fd);
}

// close(fd)
Napi::Value Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  if (!ReadFd(info, 0, &fd)) return env.Undefined();
  if (close(fd) == -1 && errno != EINTR) {
    ErrnoError(env, "close", errno, "").ThrowAsJavaScriptException();
  }
  return env.Undefined();
}

// requestSync(fd, request) -> Buffer (blocks the calling thread for one device round trip)
Napi::Value RequestSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  std::vector<uint8_t> request;
  if (!ReadFd(info, 0, &fd) || !ReadRequest(info, 1, &request)) return env.Undefined();
  std::vector<uint8_t> response;
  int err = Exchange(fd, request, &response);
  if (err != 0) {
    ErrnoError(env, "ioctl", err, "NSM_IOCTL_RAW").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Buffer<uint8_t>::Copy(env, response.data(), response.size());
}

class RequestWorker : public Napi::AsyncWorker {
 public:
  RequestWorker(Napi::Env env, int fd, std::vector<uint8_t> request)
      : Napi::AsyncWorker(env), fd_(fd), request_(std::move(request)), deferred_(Napi::Promise::Deferred::New(env)) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override { err_ = Exchange(fd_, request_, &response_); }

  void OnOK() override {
    Napi::Env env = Env();
    if (err_ != 0) {
      deferred_.Reject(ErrnoError(env, "ioctl", err_, "NSM_IOCTL_RAW").Value());
      return;
    }
    deferred_.Resolve(Napi::Buffer<uint8_t>::Copy(env, response_.data(), response_.size()));
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  int fd_;
  std::vector<uint8_t> request_;
  std::vector<uint8_t> response_;
  int err_ = 0;
  Napi::Promise::Deferred deferred_;
};

// request(fd, request) -> Promise<Buffer> (the ioctl runs on the libuv thread pool)
Napi::Value Request(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  std::vector<uint8_t> request;
  if (!ReadFd(info, 0, &fd) || !ReadRequest(info, 1, &request)) return env.Undefined();
  RequestWorker* worker = new RequestWorker(env, fd, std::move(request));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("open", Napi::Function::New(env, Open, "open"));
  exports.Set("close", Napi::Function::New(env, Close, "close"));
  exports.Set("requestSync", Napi::Function::New(env, RequestSync, "requestSync"));
  exports.Set("request", Napi::Function::New(env, Request, "request"));
  exports.Set("REQUEST_MAX_SIZE", Napi::Number::New(env, kRequestMaxSize));
  exports.Set("RESPONSE_MAX_SIZE", Napi::Number::New(env, kResponseMaxSize));
  exports.Set("IOCTL_RAW", Napi::Number::New(env, static_cast<double>(kNsmIoctlRaw)));
  return exports;
}

}  // namespace

NODE_API_MODULE(nsm, Init)
