"""What an idle `floorgate serve` costs against the minimal server (issue 45, point 12)."""
