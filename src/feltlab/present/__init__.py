"""What the faces present, written once for every game: the pages' rule cards, hand
views and settlement rows, the trainers' hands and verdicts, the pay-table solver's
answers and the rules document."""
