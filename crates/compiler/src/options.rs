//! `clBuildProgram`/`clCompileProgram` options: parsed, validated, and turned
//! into Clang cc1 arguments.

/// Why an options string was refused (`CL_INVALID_BUILD_OPTIONS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsError(pub String);

/// A validated options string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// The options as given.
    pub text: String,
    /// Arguments for Clang's cc1, in order.
    pub clang_args: Vec<String>,
    /// `-cl-std=` as given (`None`: the default, OpenCL C 1.2).
    pub cl_std: Option<String>,
    pub kernel_arg_info: bool,
    pub denorms_are_zero: bool,
    pub opt_disable: bool,
    pub fast_relaxed_math: bool,
}

/// Options passed straight to Clang (same spelling in cc1).
const CLANG_FLAGS: &[&str] = &[
    "-cl-single-precision-constant",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-uniform-work-group-size",
    "-w",
    "-Werror",
];

/// The OpenCL C versions the device compiles: a 2.0 program builds where
/// the 2.0 features it uses are offered.
const CL_STDS: &[&str] = &["CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0"];

impl BuildOptions {
    /// Parses an options string as the spec defines it (section 5.8.6).
    pub fn parse(text: &str) -> Result<BuildOptions, OptionsError> {
        let mut out = BuildOptions {
            text: text.to_string(),
            ..BuildOptions::default()
        };
        let words = split_words(text)?;
        let mut words = words.iter().map(String::as_str);
        while let Some(w) = words.next() {
            match w {
                "-D" | "-I" => {
                    let v = words
                        .next()
                        .ok_or_else(|| OptionsError(format!("{w} needs an argument")))?;
                    out.clang_args.push(w.to_string());
                    out.clang_args.push(v.to_string());
                }
                _ if w.starts_with("-D") || w.starts_with("-I") => {
                    out.clang_args.push(w.to_string())
                }
                _ if w.starts_with("-cl-std=") => {
                    let v = &w["-cl-std=".len()..];
                    if !CL_STDS.contains(&v) {
                        return Err(OptionsError(format!("unsupported OpenCL C version {v}")));
                    }
                    out.cl_std = Some(v.to_string());
                }
                "-cl-kernel-arg-info" => out.kernel_arg_info = true,
                // A hint: the host CPU handles denormals at full speed, and
                // Clang has no cc1 spelling of it for this target.
                "-cl-denorms-are-zero" => out.denorms_are_zero = true,
                "-cl-opt-disable" => out.opt_disable = true,
                "-cl-fast-relaxed-math" => {
                    out.fast_relaxed_math = true;
                    out.clang_args.push(w.to_string());
                }
                // Accepted for OpenCL 1.0 compatibility; no effect.
                "-cl-strict-aliasing" | "-g" => {}
                // Sub-groups are not offered, so none needs forward progress.
                "-cl-no-subgroup-ifp" => {}
                _ if CLANG_FLAGS.contains(&w) => out.clang_args.push(w.to_string()),
                _ => return Err(OptionsError(format!("unknown option {w}"))),
            }
        }
        Ok(out)
    }

    /// The `-cl-std` Clang gets: the spec's default is the highest 1.x.
    pub fn language(&self) -> &str {
        self.cl_std.as_deref().unwrap_or("CL1.2")
    }
}

/// Splits an options string into words the way a shell would: a quoted
/// part (`-I "my dir"`) stays one word, without its quotes.
fn split_words(text: &str) -> Result<Vec<String>, OptionsError> {
    shlex::split(text).ok_or_else(|| OptionsError(format!("unbalanced quotes in {text:?}")))
}

/// Parses `clLinkProgram` options (spec 5.8.7); returns whether a library
/// is asked for (`-create-library`).
pub fn parse_link_options(text: &str) -> Result<bool, OptionsError> {
    let mut library = false;
    for w in split_words(text)? {
        match w.as_str() {
            "-create-library" => library = true,
            "-enable-link-options"
            | "-cl-denorms-are-zero"
            | "-cl-no-signed-zeros"
            | "-cl-unsafe-math-optimizations"
            | "-cl-finite-math-only"
            | "-cl-fast-relaxed-math"
            | "-cl-no-subgroup-ifp" => {}
            _ => return Err(OptionsError(format!("unknown link option {w}"))),
        }
    }
    Ok(library)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defines_and_includes_in_both_spellings() {
        let o = BuildOptions::parse("-DA=1 -D B -I /x -I/y").unwrap();
        assert_eq!(o.clang_args, ["-DA=1", "-D", "B", "-I", "/x", "-I/y"]);
    }

    #[test]
    fn quoted_words_keep_their_spaces() {
        let o = BuildOptions::parse(r#"-I "/a dir" -I"/b dir" -D "S=1 + 2""#).unwrap();
        assert_eq!(o.clang_args, ["-I", "/a dir", "-I/b dir", "-D", "S=1 + 2"]);
        assert!(BuildOptions::parse(r#"-I "/unterminated"#).is_err());
    }

    #[test]
    fn std_is_validated() {
        assert_eq!(BuildOptions::parse("").unwrap().language(), "CL1.2");
        assert_eq!(
            BuildOptions::parse("-cl-std=CL3.0").unwrap().language(),
            "CL3.0"
        );
        assert!(BuildOptions::parse("-cl-std=CL9.9").is_err());
        assert_eq!(
            BuildOptions::parse("-cl-std=CL2.0").unwrap().language(),
            "CL2.0"
        );
    }

    #[test]
    fn unknown_options_and_missing_arguments_are_refused() {
        assert!(BuildOptions::parse("-cl-no-such-option").is_err());
        assert!(BuildOptions::parse("-D").is_err());
        assert!(BuildOptions::parse("-cl-mad-enable -w -Werror").is_ok());
    }

    #[test]
    fn link_options() {
        assert_eq!(parse_link_options("-create-library"), Ok(true));
        assert_eq!(parse_link_options("-cl-fast-relaxed-math"), Ok(false));
        assert!(parse_link_options("-D X").is_err());
    }

    #[test]
    fn flags_are_recorded() {
        let o = BuildOptions::parse("-cl-kernel-arg-info -cl-denorms-are-zero -cl-opt-disable")
            .unwrap();
        assert!(o.kernel_arg_info && o.denorms_are_zero && o.opt_disable);
    }
}
