//! Collects every mistake in the input so that all of them are reported in one compile.

/// The errors found so far, in the order they were found.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    /// Records a mistake and carries on, so that later mistakes are reported too.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    /// Every recorded error followed by `last`, for a mistake that stops validation.
    pub(crate) fn fail(self, last: syn::Error) -> syn::Error {
        match self.finish() {
            Ok(()) => last,
            Err(mut combined) => {
                combined.combine(last);
                combined
            }
        }
    }

    /// `Ok` when nothing was recorded, else every recorded error combined into one.
    pub(crate) fn finish(self) -> syn::Result<()> {
        let mut errors = self.0.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::*;

    #[test]
    fn no_errors_is_ok() {
        assert!(Errors::default().finish().is_ok());
    }

    #[test]
    fn every_error_is_kept_in_order() {
        let mut errors = Errors::default();
        errors.push(syn::Error::new(Span::call_site(), "first"));
        errors.push(syn::Error::new(Span::call_site(), "second"));
        let messages: Vec<String> =
            errors.finish().unwrap_err().into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages, ["first", "second"]);
    }

    #[test]
    fn fail_puts_the_stopping_error_last() {
        let mut errors = Errors::default();
        errors.push(syn::Error::new(Span::call_site(), "first"));
        let error = errors.fail(syn::Error::new(Span::call_site(), "stop"));
        let messages: Vec<String> = error.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages, ["first", "stop"]);
        let alone = Errors::default().fail(syn::Error::new(Span::call_site(), "stop"));
        assert_eq!(alone.to_string(), "stop");
    }
}
