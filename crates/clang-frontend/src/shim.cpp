// The in-process Clang front end: OpenCL C source in, LLVM module out.
// Kept to the one job Rust cannot do through the LLVM C API.
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/HeaderSearchOptions.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm-c/Core.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {
// The real file system, recording every file Clang reads and every path it
// looks for in vain: what a build depends on beyond its arguments (an
// `#include`d header, or one that would now be found first).
class RecordingFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  RecordingFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs,
                      std::string &record)
      : ProxyFileSystem(std::move(fs)), record_(record) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &path) override {
    auto s = ProxyFileSystem::status(path);
    if (!s) note('M', path);
    return s;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &path) override {
    auto f = ProxyFileSystem::openFileForRead(path);
    note(f ? 'R' : 'M', path);
    return f;
  }

private:
  // One entry per line: R (read) or M (missing), then the path.
  void note(char what, const llvm::Twine &path) {
    record_ += what;
    record_ += path.str();
    record_ += '\n';
  }
  std::string &record_;
};

char *copy_string(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}
} // namespace

extern "C" {

struct FerroclHeader {
  const char *name;
  const char *source;
  size_t length;
};

// Compiles `source` (of `source_len` bytes, named `file_name`) with the cc1
// arguments `args`. Headers given in `headers` are visible to #include by name.
// On success returns a module owned by `ctx`; always sets `*log` to Clang's
// diagnostics (free with ferrocl_clang_free).
LLVMModuleRef ferrocl_clang_compile(LLVMContextRef ctx, const char *source,
                                    size_t source_len, const char *file_name,
                                    const char *const *args, size_t num_args,
                                    const FerroclHeader *headers,
                                    size_t num_headers, char **log,
                                    char **files) {
  std::string log_text;
  std::string files_text;
  llvm::raw_string_ostream log_stream(log_text);

  clang::DiagnosticOptions diag_opts;
  diag_opts.ShowColors = false;
  auto *printer = new clang::TextDiagnosticPrinter(log_stream, diag_opts);
  clang::DiagnosticsEngine diags(
      llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), diag_opts, printer,
      /*ShouldOwnClient=*/true);

  std::vector<const char *> argv(args, args + num_args);
  argv.push_back(file_name);
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  bool ok = clang::CompilerInvocation::CreateFromArgs(*invocation, argv, diags);

  llvm::Module *module = nullptr;
  if (ok && !diags.hasErrorOccurred()) {
    auto &pp = invocation->getPreprocessorOpts();
    pp.addRemappedFile(file_name,
                       llvm::MemoryBuffer::getMemBufferCopy(
                           llvm::StringRef(source, source_len), file_name)
                           .release());
    // Embedded headers live in an in-memory directory that is searched
    // first, so #include "name" (and <name>) finds them by their include
    // name, and a header may include another by its own name.
    auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
        llvm::makeIntrusiveRefCnt<RecordingFileSystem>(
            llvm::vfs::getRealFileSystem(), files_text));
    auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    const std::string header_dir = "/ferrocl-embedded-headers";
    if (num_headers > 0) {
      auto &search = invocation->getHeaderSearchOpts();
      search.UserEntries.insert(
          search.UserEntries.begin(),
          clang::HeaderSearchOptions::Entry(header_dir, clang::frontend::Angled,
                                            /*IsFramework=*/false,
                                            /*IgnoreSysRoot=*/true));
    }
    for (size_t i = 0; i < num_headers; ++i) {
      memory->addFile(header_dir + "/" + headers[i].name, 0,
                      llvm::MemoryBuffer::getMemBufferCopy(
                          llvm::StringRef(headers[i].source, headers[i].length),
                          headers[i].name));
    }
    overlay->pushOverlay(memory);

    clang::CompilerInstance compiler(invocation);
    compiler.setVirtualFileSystem(overlay);
    compiler.createDiagnostics(
        new clang::TextDiagnosticPrinter(log_stream, diag_opts),
        /*ShouldOwnClient=*/true);
    compiler.createFileManager();
    // "N errors generated." belongs in the build log, not on stderr.
    compiler.setVerboseOutputStream(log_stream);
    clang::EmitLLVMOnlyAction action(llvm::unwrap(ctx));
    if (compiler.ExecuteAction(action)) {
      module = action.takeModule().release();
    }
  }
  log_stream.flush();
  *log = copy_string(log_text);
  *files = copy_string(files_text);
  return module ? llvm::wrap(module) : nullptr;
}

// Links into `dest` the definitions in the bitcode `data` that `dest` uses,
// and what those use in turn; the rest of the bitcode is never read (the
// C API can only link, and so parse, a whole module). Returns 0 on success;
// otherwise sets `*error` (free with ferrocl_clang_free).
int ferrocl_link_needed(LLVMModuleRef dest, const char *data, size_t len,
                        char **error) {
  llvm::Module *module = llvm::unwrap(dest);
  llvm::MemoryBufferRef buffer(llvm::StringRef(data, len), "library");
  auto lazy = llvm::getLazyBitcodeModule(buffer, module->getContext());
  if (!lazy) {
    *error = copy_string(llvm::toString(lazy.takeError()));
    return 1;
  }
  if (llvm::Linker::linkModules(*module, std::move(*lazy),
                                llvm::Linker::LinkOnlyNeeded)) {
    *error = copy_string("linking the library failed");
    return 1;
  }
  return 0;
}

// Declares the loop whose latch branch is `latch` free of dependences
// between iterations for the memory accesses of `calls`: they get one new
// access group (the inliner hands it on to every access it inlines from
// them), and the loop lists it in llvm.loop.parallel_accesses. With
// `keep_rolled`, the loop also says llvm.loop.unroll.disable; with an
// `interleave` above 0, llvm.loop.interleave.count. The C API cannot make
// the distinct nodes this takes.
void ferrocl_mark_parallel_loop(LLVMValueRef latch, LLVMValueRef *calls,
                                size_t num_calls, int keep_rolled,
                                unsigned interleave) {
  auto *branch = llvm::cast<llvm::Instruction>(llvm::unwrap(latch));
  llvm::LLVMContext &ctx = branch->getContext();
  llvm::MDNode *group = llvm::MDNode::getDistinct(ctx, {});
  for (size_t i = 0; i < num_calls; ++i) {
    llvm::cast<llvm::Instruction>(llvm::unwrap(calls[i]))
        ->setMetadata(llvm::LLVMContext::MD_access_group, group);
  }
  llvm::Metadata *parallel[] = {
      llvm::MDString::get(ctx, "llvm.loop.parallel_accesses"), group};
  llvm::SmallVector<llvm::Metadata *, 3> ops = {nullptr,
                                                llvm::MDNode::get(ctx, parallel)};
  if (keep_rolled) {
    llvm::Metadata *disable[] = {
        llvm::MDString::get(ctx, "llvm.loop.unroll.disable")};
    ops.push_back(llvm::MDNode::get(ctx, disable));
    // The loops the vectorizer makes (vector body, remainder) say only
    // that they progress: the unroller may take them as usual.
    llvm::Metadata *progress[] = {
        llvm::MDString::get(ctx, "llvm.loop.mustprogress")};
    llvm::Metadata *followup[] = {
        llvm::MDString::get(ctx, "llvm.loop.vectorize.followup_all"),
        llvm::MDNode::get(ctx, progress)};
    ops.push_back(llvm::MDNode::get(ctx, followup));
  }
  if (interleave > 0) {
    llvm::Metadata *count[] = {
        llvm::MDString::get(ctx, "llvm.loop.interleave.count"),
        llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
            llvm::Type::getInt32Ty(ctx), interleave))};
    ops.push_back(llvm::MDNode::get(ctx, count));
  }
  llvm::MDNode *loop = llvm::MDNode::getDistinct(ctx, ops);
  loop->replaceOperandWith(0, loop);
  branch->setMetadata(llvm::LLVMContext::MD_loop, loop);
}

void ferrocl_clang_free(char *p) { std::free(p); }
}
