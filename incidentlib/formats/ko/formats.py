"""Korean formats where Django's differ from how Korean is written: 오전/오후 come before the
time ("2026년 11월 19일 오전 10:00", not "10:00 오전"), as Django's own TIME_FORMAT has them."""

DATETIME_FORMAT = "Y년 n월 j일 A g:i"
