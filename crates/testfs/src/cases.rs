//! [`test_cases!`](crate::test_cases): a table of cases made into one
//! `#[test]` per case, so that one case can be run, and fail, alone
//! (`cargo test --test find -- expressions::name_one --exact`).

/// Makes a module of one `#[test]` per case of a table.
///
/// `test_cases! { mod NAME: TYPE => CHECK; case_name: VALUE, ... }` makes
/// `mod NAME` holding, for each row, `#[test] fn case_name()` that calls
/// `CHECK(VALUE)` (`CHECK` is a path from the invoking module, taken as
/// `super::CHECK` inside the new one), and `ALL: &[TYPE]`, every value in
/// the table's order, for tests about the table itself.  Doc comments
/// before `mod` document the module; comments may stand between rows.
///
/// ```
/// fn check_even(n: u32) {
///     assert_eq!(n % 2, 0, "{n}");
/// }
/// dents_testfs::test_cases! { mod evens: u32 => check_even;
///     two: 2,
///     // The largest that matters.
///     four: 4,
/// }
///
/// fn main() {
///     assert_eq!(evens::ALL, &[2, 4]);
/// }
/// ```
#[macro_export]
macro_rules! test_cases {
    ($(#[$doc:meta])* mod $module:ident: $ty:ty => $check:ident; $($name:ident: $case:expr,)*) => {
        $(#[$doc])*
        mod $module {
            $(
                #[test]
                fn $name() {
                    super::$check($case);
                }
            )*
            /// Every case of the table, in its order.
            #[allow(dead_code)]
            pub const ALL: &[$ty] = &[$($case),*];
        }
    };
}
