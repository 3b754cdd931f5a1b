"""Question factories: BIS-category templates with gold SQL, the BI-Bench pipeline, CORGI suites, CCA."""
