"""New Hampshire Hold'em Stud: 2 cards each and 3 community cards turned one at a time,
a street bet or a fold before each, every wager paid on a 5-card pay table; a 3 Card
Bonus on the community cards."""
