//! What an exercise is made of: its equipment, the muscles it trains and their groups, its
//! movement pattern, and how its logged weight relates to the load moved.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Equipment {
    Barbell,
    EzBar,
    TrapBar,
    Dumbbell,
    Cable,
    Machine,
    Smith,
    Kettlebell,
    Band,
    Bodyweight,
    Plate,
    MedicineBall,
    Sled,
}

impl Equipment {
    pub const ALL: [Equipment; 13] = [
        Equipment::Barbell,
        Equipment::EzBar,
        Equipment::TrapBar,
        Equipment::Dumbbell,
        Equipment::Cable,
        Equipment::Machine,
        Equipment::Smith,
        Equipment::Kettlebell,
        Equipment::Band,
        Equipment::Bodyweight,
        Equipment::Plate,
        Equipment::MedicineBall,
        Equipment::Sled,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Equipment::Barbell => "barbell",
            Equipment::EzBar => "ez_bar",
            Equipment::TrapBar => "trap_bar",
            Equipment::Dumbbell => "dumbbell",
            Equipment::Cable => "cable",
            Equipment::Machine => "machine",
            Equipment::Smith => "smith",
            Equipment::Kettlebell => "kettlebell",
            Equipment::Band => "band",
            Equipment::Bodyweight => "bodyweight",
            Equipment::Plate => "plate",
            Equipment::MedicineBall => "medicine_ball",
            Equipment::Sled => "sled",
        }
    }

    /// The label tracking apps put in brackets: "Bench Press (Barbell)".
    pub fn label(self) -> &'static str {
        match self {
            Equipment::Barbell => "Barbell",
            Equipment::EzBar => "EZ Bar",
            Equipment::TrapBar => "Trap Bar",
            Equipment::Dumbbell => "Dumbbell",
            Equipment::Cable => "Cable",
            Equipment::Machine => "Machine",
            Equipment::Smith => "Smith Machine",
            Equipment::Kettlebell => "Kettlebell",
            Equipment::Band => "Band",
            Equipment::Bodyweight => "Bodyweight",
            Equipment::Plate => "Weighted",
            Equipment::MedicineBall => "Medicine Ball",
            Equipment::Sled => "Sled",
        }
    }

    pub fn parse(s: &str) -> Option<Equipment> {
        Equipment::ALL.into_iter().find(|e| e.id() == s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Muscle {
    Chest,
    UpperChest,
    Lats,
    UpperBack,
    Traps,
    LowerBack,
    FrontDelts,
    SideDelts,
    RearDelts,
    Biceps,
    Brachialis,
    Triceps,
    Forearms,
    Quads,
    Hamstrings,
    Glutes,
    Adductors,
    Abductors,
    Calves,
    Abs,
    Obliques,
    HipFlexors,
}

impl Muscle {
    pub const ALL: [Muscle; 22] = [
        Muscle::Chest,
        Muscle::UpperChest,
        Muscle::Lats,
        Muscle::UpperBack,
        Muscle::Traps,
        Muscle::LowerBack,
        Muscle::FrontDelts,
        Muscle::SideDelts,
        Muscle::RearDelts,
        Muscle::Biceps,
        Muscle::Brachialis,
        Muscle::Triceps,
        Muscle::Forearms,
        Muscle::Quads,
        Muscle::Hamstrings,
        Muscle::Glutes,
        Muscle::Adductors,
        Muscle::Abductors,
        Muscle::Calves,
        Muscle::Abs,
        Muscle::Obliques,
        Muscle::HipFlexors,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Muscle::Chest => "chest",
            Muscle::UpperChest => "upper_chest",
            Muscle::Lats => "lats",
            Muscle::UpperBack => "upper_back",
            Muscle::Traps => "traps",
            Muscle::LowerBack => "lower_back",
            Muscle::FrontDelts => "front_delts",
            Muscle::SideDelts => "side_delts",
            Muscle::RearDelts => "rear_delts",
            Muscle::Biceps => "biceps",
            Muscle::Brachialis => "brachialis",
            Muscle::Triceps => "triceps",
            Muscle::Forearms => "forearms",
            Muscle::Quads => "quads",
            Muscle::Hamstrings => "hamstrings",
            Muscle::Glutes => "glutes",
            Muscle::Adductors => "adductors",
            Muscle::Abductors => "abductors",
            Muscle::Calves => "calves",
            Muscle::Abs => "abs",
            Muscle::Obliques => "obliques",
            Muscle::HipFlexors => "hip_flexors",
        }
    }

    pub fn parse(s: &str) -> Option<Muscle> {
        Muscle::ALL.into_iter().find(|m| m.id() == s)
    }

    pub fn group(self) -> MuscleGroup {
        use Muscle::*;
        match self {
            Chest | UpperChest => MuscleGroup::Chest,
            Lats | UpperBack | Traps | LowerBack => MuscleGroup::Back,
            FrontDelts | SideDelts | RearDelts => MuscleGroup::Shoulders,
            Biceps | Brachialis | Triceps | Forearms => MuscleGroup::Arms,
            Quads | Hamstrings | Glutes | Adductors | Abductors | Calves | HipFlexors => {
                MuscleGroup::Legs
            }
            Abs | Obliques => MuscleGroup::Core,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MuscleGroup {
    Chest,
    Back,
    Shoulders,
    Arms,
    Legs,
    Core,
    FullBody,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementPattern {
    HorizontalPush,
    VerticalPush,
    Dip,
    ChestFly,
    HorizontalPull,
    VerticalPull,
    ShoulderExtension,
    Shrug,
    HorizontalAbduction,
    ShoulderAbduction,
    ShoulderFlexion,
    ShoulderRotation,
    ElbowFlexion,
    ElbowExtension,
    WristFlexion,
    Grip,
    Carry,
    Squat,
    Lunge,
    Hinge,
    HipExtension,
    KneeExtension,
    KneeFlexion,
    HipAbduction,
    HipAdduction,
    CalfRaise,
    CoreFlexion,
    CoreRotation,
    CoreStability,
    CoreLateralFlexion,
    Olympic,
    FullBody,
    Jump,
}

impl MovementPattern {
    pub fn parse(s: &str) -> Option<MovementPattern> {
        // serde's snake_case names are the catalog's spelling.
        serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
    }
}

/// How the weight logged for an exercise relates to the load moved. Bodyweight work moves a
/// share of the lifter's bodyweight: a weighted pull-up logs only the belt's plates, an
/// assisted one logs the machine's help, which is taken off (less help is progress).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Loading {
    /// The logged weight is the load (barbells, dumbbells, machines, cables), or the exercise
    /// is counted in reps and time only (planks, crunches, air squats).
    External,
    /// `share` of the bodyweight plus any logged weight.
    Bodyweight { share: f64 },
    /// `share` of the bodyweight minus the logged assistance.
    Assisted { share: f64 },
}

impl Loading {
    /// The share of bodyweight a pattern moves, for the patterns whose bodyweight versions are
    /// strength work measured in load: hanging and dipping lift all of it; a push-up about
    /// two thirds (Ebben et al. 2011, J Strength Cond Res 25(10): 64 % of body mass in the
    /// standard push-up). Other bodyweight work is counted in reps and time.
    fn share(pattern: MovementPattern) -> Option<f64> {
        match pattern {
            MovementPattern::VerticalPull | MovementPattern::Dip => Some(1.0),
            MovementPattern::HorizontalPush => Some(0.64),
            _ => None,
        }
    }

    /// From the catalog line: bodyweight equipment, a "weighted-" plate variant or an
    /// "assisted" variant of a pattern with a share.
    pub(super) fn of(id: &str, equipment: Equipment, pattern: MovementPattern) -> Loading {
        let Some(share) = Loading::share(pattern) else {
            return Loading::External;
        };
        if id.contains("assisted") {
            Loading::Assisted { share }
        } else if equipment == Equipment::Bodyweight
            || (equipment == Equipment::Plate && id.starts_with("weighted-"))
        {
            Loading::Bodyweight { share }
        } else {
            Loading::External
        }
    }

    pub fn uses_bodyweight(self) -> bool {
        !matches!(self, Loading::External)
    }
}
