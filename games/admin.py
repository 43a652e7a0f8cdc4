# Admin registrations for the game models come with the models.
