//! Findings as data, and the printers that render them: miette for people; JSON,
//! SARIF, JUnit and GitHub annotations for machines.
